import { vi } from 'vitest';
import { REQUEST_NAMES, type Api, type EventName, type Events, type Result } from '../../../src-shared/contract';

/** What a request answers when the test gives nothing (default: [] for a list, else null). */
const DEFAULTS: Partial<Record<string, unknown>> = {
  'messages.contacts': { contacts: [], agents: [], unread: 0, retentionDays: 90 },
  'messages.sent': [],
  'messages.thread': { messages: [], more: false },
  'send.budget': { teamId: 't1', limit: 60, windowMs: 60_000, used: 0, queued: [] },
  'messages.unread': { total: 0, agents: [] },
  'alerts.history': [],
  'health.availability': { at: 0, windows: [] },
  'hub.activity': { entries: [], next: null },
};

export function fakeApi(answers: Partial<Record<string, unknown>> = {}) {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const calls: { name: string; args: unknown }[] = [];
  const api: Record<string, unknown> = {};
  for (const name of REQUEST_NAMES) {
    api[name] = vi.fn(async (args?: unknown): Promise<Result<unknown>> => {
      calls.push({ name, args });
      const a = answers[name];
      if (typeof a === 'function') return (a as (x: unknown) => Result<unknown>)(args);
      return a === undefined
        ? { ok: true, value: DEFAULTS[name] ?? (name.endsWith('.list') ? [] : null) }
        : (a as Result<unknown>);
    });
  }
  api['on'] = (event: string, cb: (p: unknown) => void) => {
    if (!listeners.has(event)) listeners.set(event, new Set());
    listeners.get(event)!.add(cb);
    return () => listeners.get(event)!.delete(cb);
  };
  const emit = <E extends EventName>(event: E, payload: Events[E]) => {
    for (const cb of listeners.get(event) ?? []) cb(payload);
  };
  return { api: api as Api, emit, calls, listeners };
}
