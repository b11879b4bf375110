// Test helpers for the emulator: a manual clock and small request wrappers.
import { fetch, type Response } from 'undici';
import type { Clock } from '../../../src-main/core/ports';
import type { Emulator } from '../../../src-main/emulator/index';

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Milliseconds until each pending timer fires, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.t).sort((a, b) => a - b);
  }

  /** Moves time forward, firing due timers in order and letting I/O settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

export const settle = () => new Promise<void>((r) => setImmediate(r));

/** Polls until check() is truthy (real time, short). */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 3000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - start > timeoutMs) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface Call {
  status: number;
  headers: Response['headers'];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function client(emu: Emulator, key: string | null) {
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Call> => {
    const headers: Record<string, string> = { ...extra };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${emu.baseUrl}${path}`, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* keep text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const agent = (id: string) => `/api/v1/agents/${id}`;
  return {
    call,
    session: (id: string) => call('GET', `${agent(id)}/whatsapp/session`),
    startSession: (id: string) => call('POST', `${agent(id)}/whatsapp/session`),
    send: (id: string, body: unknown) => call('POST', `${agent(id)}/whatsapp/messages`, body),
    webhook: (id: string, body: unknown) => call('PUT', `${agent(id)}/whatsapp/webhook`, body),
    contact: (id: string, phone: string) => call('GET', `${agent(id)}/whatsapp/contacts/${phone}`),
    settings: (id: string, body: unknown) => call('PATCH', `${agent(id)}/whatsapp/settings`, body),
    media: (id: string, messageId: string) => call('GET', `${agent(id)}/whatsapp/media/${messageId}`),
    chat: (id: string, body: unknown, extra?: Record<string, string>) => call('POST', `${agent(id)}/chat`, body, extra),
  };
}

export async function ctl(emu: Emulator, method: string, path: string, body?: unknown): Promise<Call> {
  const res = await fetch(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

