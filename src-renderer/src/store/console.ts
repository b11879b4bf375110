// Console: sends with their live progress (queued, retrying), the team's send budget and queue,
// the history of sends with message ids, and contact checks. Sends run side by side (a spent budget
// queues them in the main process); each keeps what it sent, so a failed one can be sent again, and
// one still waiting (queued or between retries) can be stopped.
import type {
  ContactCheckDTO,
  ErrorDTO,
  Result,
  SendArgs,
  SendBudgetDTO,
  SendProgressDTO,
  SendResultDTO,
} from '../../../src-shared/contract';
import { localId, type Slice } from './env';

type SendKind = 'text' | 'image' | 'document';
type SendState = 'sending' | 'queued' | 'retrying' | 'sent' | 'failed';

export interface SendRecord {
  clientRef: string;
  teamId: string;
  agentId: string;
  to: string;
  kind: SendKind;
  /** What was sent, short: the text, the caption, or the file name. */
  summary: string;
  at: number;
  state: SendState;
  messageId: string | null;
  error: ErrorDTO | null;
  /** send.progress events with phase 'retrying', in order, each with when it arrived (`at`). */
  retries: (SendProgressDTO & { at: number })[];
  /** Its place in the queue as the send was queued; `at` when that was told. */
  queue: { position?: number; waitMs?: number; queuedId?: string; at: number } | null;
  /** What was sent (without clientRef), for Retry. */
  args: Omit<SendArgs, 'clientRef'>;
  /** The clientRef of the send that retried this one. */
  retriedAs?: string;
}

export interface ConsoleSlice {
  /** Newest first. */
  sendHistory: SendRecord[];
  sendBudgets: Record<string, SendBudget>;
  sendMessage(args: SendArgs): Promise<Result<SendResultDTO>>;
  loadSendBudget(teamId: string): Promise<void>;
  /** Takes a queued send out of the team's queue. */
  cancelQueuedSend(teamId: string, queuedId: string): Promise<ErrorDTO | null>;
  /** Stops a send of this window while it waits (queued or between retries); it then ends 'failed' (aborted). */
  stopSend(clientRef: string): Promise<ErrorDTO | null>;
  /** Sends a failed send's message again as a new send; null when it did not fail or was retried already. */
  retrySend(clientRef: string): Promise<Result<SendResultDTO> | null>;
  checkContact(teamId: string, agentId: string, phone: string): Promise<Result<ContactCheckDTO>>;
  applySendProgress(p: SendProgressDTO): void;
}

const MAX_HISTORY = 200;

/**
 * A team's send budget as last read, with when it was asked for (`askedAt`) and when the answer came
 * (`readAt`): a queued send's wait counts down from there.
 */
export type SendBudget = SendBudgetDTO & { askedAt: number; readAt: number };

/**
 * Where a queued send stands: its place in the team's queue and when it leaves (ms epoch), as the
 * send budget last read them (the same figures the budget's own list shows), else as they were when
 * it was queued.
 */
export function queuePlace(r: SendRecord, budget: SendBudget | undefined): { position?: number; leavesAt?: number } {
  const id = r.queue?.queuedId;
  const queued = budget?.queued ?? [];
  const i = id === undefined ? -1 : queued.findIndex((q) => q.id === id);
  const now = queued[i];
  if (now && budget) return { position: i + 1, leavesAt: budget.readAt + now.etaMs };
  const out: { position?: number; leavesAt?: number } = {};
  if (r.queue?.position !== undefined) out.position = r.queue.position;
  if (r.queue?.waitMs !== undefined) out.leavesAt = r.queue.at + r.queue.waitMs;
  return out;
}

function kindOf(a: SendArgs): SendKind {
  return a.imageUrl ? 'image' : a.documentUrl ? 'document' : 'text';
}

/** What was sent, in full: the text, the caption (else the image URL), or the file name (else the document URL). */
export function contentOf(a: Omit<SendArgs, 'clientRef'>): string {
  return a.imageUrl ? (a.text ?? a.imageUrl) : a.documentUrl ? (a.documentFilename ?? a.documentUrl) : (a.text ?? '');
}

function summaryOf(a: SendArgs): string {
  const s = contentOf(a);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

export const consoleSlice: Slice<ConsoleSlice> = ({ set, get, api, env }) => {
  const patch = (clientRef: string, fn: (r: SendRecord) => SendRecord) =>
    set((s) => ({ sendHistory: s.sendHistory.map((r) => (r.clientRef === clientRef ? fn(r) : r)) }));

  const budget = async (teamId: string): Promise<void> => {
    const askedAt = env.now();
    const r = await api['send.budget']({ teamId });
    if (!r.ok) return;
    const read: SendBudget = { ...r.value, askedAt, readAt: env.now() };
    const inQueue = new Set((r.value.queued ?? []).map((q) => q.id));
    // A send of this window queued before this read was asked for, and no longer in the team's
    // queue, has left it: it is going out (so the rows marked queued are the ones the budget lists).
    const left = (x: SendRecord) =>
      x.state === 'queued' &&
      x.teamId === teamId &&
      x.queue?.queuedId !== undefined &&
      x.queue.at < askedAt &&
      !inQueue.has(x.queue.queuedId);
    set((s) => ({
      sendBudgets: { ...s.sendBudgets, [teamId]: read },
      sendHistory: s.sendHistory.some(left)
        ? s.sendHistory.map((x) => (left(x) ? { ...x, state: 'sending' as const } : x))
        : s.sendHistory,
    }));
  };

  return {
    sendHistory: [],
    sendBudgets: {},
    sendMessage: async ({ clientRef: given, ...sent }) => {
      const args: SendArgs = sent;
      const clientRef = given ?? localId('send');
      const rec: SendRecord = {
        clientRef,
        teamId: args.teamId,
        agentId: args.agentId,
        to: args.to,
        kind: kindOf(args),
        summary: summaryOf(args),
        at: env.now(),
        state: 'sending',
        messageId: null,
        error: null,
        retries: [],
        queue: null,
        args: sent,
      };
      set((s) => ({ sendHistory: [rec, ...s.sendHistory].slice(0, MAX_HISTORY) }));
      const r = await api['send.message']({ ...args, clientRef });
      patch(clientRef, (x) =>
        r.ok
          ? { ...x, state: 'sent', messageId: r.value.messageId, to: r.value.to, queue: null }
          : { ...x, state: 'failed', error: r.error, queue: null },
      );
      void budget(args.teamId);
      return r;
    },
    loadSendBudget: budget,
    cancelQueuedSend: async (teamId, queuedId) => {
      const r = await api['send.cancel']({ teamId, queuedId });
      await budget(teamId);
      if (!r.ok) return r.error;
      if (!r.value.cancelled)
        return { kind: 'not-found', code: 'NOT_QUEUED', message: 'That send already left the queue.' };
      return null;
    },
    stopSend: async (clientRef) => {
      const rec = get().sendHistory.find((r) => r.clientRef === clientRef);
      if (!rec || rec.state === 'sent' || rec.state === 'failed') return null;
      const r = await api['send.stop']({ clientRef });
      if (!r.ok) return r.error;
      return r.value.stopped
        ? null
        : {
            kind: 'not-found',
            code: 'NOT_WAITING',
            message: 'That send is no longer waiting; it already went out or ended.',
          };
    },
    retrySend: async (clientRef) => {
      const rec = get().sendHistory.find((r) => r.clientRef === clientRef);
      if (!rec || rec.state !== 'failed' || rec.retriedAs) return null;
      const again = localId('send');
      patch(clientRef, (x) => ({ ...x, retriedAs: again }));
      return get().sendMessage({ ...rec.args, clientRef: again });
    },
    checkContact: (teamId, agentId, phone) => api['contacts.check']({ teamId, agentId, phone }),
    applySendProgress: (p) => {
      const known = p.clientRef !== undefined && get().sendHistory.some((r) => r.clientRef === p.clientRef);
      if (known && p.clientRef !== undefined) {
        patch(p.clientRef, (x) => {
          if (x.state === 'sent' || x.state === 'failed') return x;
          if (p.phase === 'retrying')
            return { ...x, state: 'retrying', retries: [...x.retries, { ...p, at: env.now() }] };
          return {
            ...x,
            state: 'queued',
            queue: { position: p.position, waitMs: p.waitMs, queuedId: p.queuedId, at: env.now() },
          };
        });
      }
      if (p.phase === 'queued') void budget(p.teamId);
    },
  };
};
