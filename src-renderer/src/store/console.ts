// Sends: this window's sends with their live progress (queued, retrying), whether made from the
// console or the Messages composer; the team's send budget and queue; the agents' sends as the send
// log keeps them (what the console lists under "Sent from here", across restarts); contact checks. Sends run side by side (a spent budget
// queues them in the main process); each keeps what it sent, so a failed one can be sent again, and
// one still waiting (queued or between retries) can be stopped.
import type {
  ContactCheckDTO,
  ErrorDTO,
  MessageDTO,
  Result,
  SendArgs,
  SendBudgetDTO,
  SendProgressDTO,
  SendResultDTO,
} from '../../../src-shared/contract';
import { agentKey, localId, type Slice } from './env';

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
  /** Which part of this install made it (sends read from the send log). */
  via?: MessageDTO['via'];
  /** The team hub's member who sent it (sends read from a hub's inbox). */
  sentBy?: string;
}

/** Which request a send goes through: the console's, or the Messages composer's (recorded as such in the send log). */
type SendFrom = 'console' | 'messages';

export interface ConsoleSlice {
  /** Newest first. */
  sendHistory: SendRecord[];
  sendBudgets: Record<string, SendBudget>;
  /** By agentKey: the agent's sends read from the send log, newest first (once asked for). */
  sentLog: Record<string, SendRecord[]>;
  sendMessage(args: SendArgs, from?: SendFrom): Promise<Result<SendResultDTO>>;
  /** Reads an agent's sends from the send log (messages.sent). */
  loadSentLog(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  /** A message stored (messages.new): a send recorded in the send log joins its agent's list. */
  applySentMessage(m: MessageDTO): void;
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

/** A send as the send log keeps it (messages.sent, messages.new), as a settled send record. */
function recordOfSent(m: MessageDTO): SendRecord {
  const args: Omit<SendArgs, 'clientRef'> = { teamId: m.teamId ?? '', agentId: m.agentId, to: m.contact };
  const kind: SendKind = m.type === 'image' || m.type === 'document' ? m.type : 'text';
  if (kind === 'image' && m.media?.url) args.imageUrl = m.media.url;
  if (kind === 'document' && m.media?.url) args.documentUrl = m.media.url;
  if (kind === 'document' && m.media?.filename) args.documentFilename = m.media.filename;
  if (m.text) args.text = m.text;
  const rec: SendRecord = {
    clientRef: m.clientRef ?? `log:${m.key}`,
    teamId: args.teamId,
    agentId: m.agentId,
    to: m.contact,
    kind,
    summary: summaryOf(args),
    at: m.at,
    state: m.status === 'failed' || m.error ? 'failed' : 'sent',
    messageId: m.messageId ?? null,
    error: m.error ?? null,
    retries: [],
    queue: null,
    args,
  };
  if (m.via !== undefined) rec.via = m.via;
  if (m.sentBy !== undefined) rec.sentBy = m.sentBy;
  return rec;
}

/**
 * An agent's sends, newest first: this window's (with their live progress), and every other one the
 * send log holds (a line of the log is this window's send when it carries its clientRef).
 */
export function agentSends(
  history: readonly SendRecord[],
  logged: readonly SendRecord[] | undefined,
  teamId: string,
  agentId: string,
): SendRecord[] {
  const mine = history.filter((r) => r.teamId === teamId && r.agentId === agentId);
  const refs = new Set(mine.map((r) => r.clientRef));
  const ids = new Set(mine.map((r) => r.messageId).filter((x) => x !== null));
  const others = (logged ?? []).filter(
    (r) => !refs.has(r.clientRef) && !(r.messageId !== null && ids.has(r.messageId)),
  );
  return [...mine, ...others].sort((a, b) => b.at - a.at);
}

function summaryOf(a: Omit<SendArgs, 'clientRef'>): string {
  const s = contentOf(a);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

export const consoleSlice: Slice<ConsoleSlice> = ({ set, get, api, env }) => {
  const patch = (clientRef: string, fn: (r: SendRecord) => SendRecord) =>
    set((s) => ({ sendHistory: s.sendHistory.map((r) => (r.clientRef === clientRef ? fn(r) : r)) }));

  const loadSentLog = async (teamId: string, agentId: string): Promise<ErrorDTO | null> => {
    const r = await api['messages.sent']({ teamId, agentId });
    if (!r.ok) return r.error;
    set((s) => ({ sentLog: { ...s.sentLog, [agentKey(teamId, agentId)]: r.value.map(recordOfSent) } }));
    return null;
  };

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
    sentLog: {},
    sendMessage: async ({ clientRef: given, ...sent }, from = 'console') => {
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
      if (from === 'messages') rec.via = 'messages';
      const r = await api[from === 'messages' ? 'messages.send' : 'send.message']({ ...args, clientRef });
      patch(clientRef, (x) =>
        r.ok
          ? { ...x, state: 'sent', messageId: r.value.messageId, to: r.value.to, queue: null }
          : { ...x, state: 'failed', error: r.error, queue: null },
      );
      void budget(args.teamId);
      return r;
    },
    loadSendBudget: budget,
    loadSentLog,
    applySentMessage: (m) => {
      if (m.via === undefined || m.teamId === null) return;
      const key = agentKey(m.teamId, m.agentId);
      const list = get().sentLog[key];
      const rec = recordOfSent(m);
      if (!list || list.some((r) => r.clientRef === rec.clientRef)) return;
      const next = [rec, ...list].sort((a, b) => b.at - a.at);
      set((s) => ({ sentLog: { ...s.sentLog, [key]: next } }));
    },
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
      const logged = Object.values(get().sentLog).flat();
      const rec = [...get().sendHistory, ...logged].find((r) => r.clientRef === clientRef);
      if (!rec || rec.state !== 'failed' || rec.retriedAs) return null;
      const again = localId('send');
      patch(clientRef, (x) => ({ ...x, retriedAs: again }));
      set((s) => ({
        sentLog: Object.fromEntries(
          Object.entries(s.sentLog).map(([k, list]) => [
            k,
            list.map((x) => (x.clientRef === clientRef ? { ...x, retriedAs: again } : x)),
          ]),
        ),
      }));
      return get().sendMessage({ ...rec.args, clientRef: again }, rec.via === 'messages' ? 'messages' : 'console');
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
