// Chat: conversations per (team, agent, user id), messages keyed by id so one chat row can select
// its own message, and live turns. Tokens from chat.token events are committed once per frame
// (frame-batch.ts), so a fast stream costs one store update (and one row render) per frame, however
// many chunks arrive in between. A turn's stream frames as received are loaded on demand (chat.frames).
import type { ChatFramesDTO, ChatMessageDTO, ChatResultDTO, ErrorDTO } from '../../../src-shared/contract';
import { localId, type Slice } from './env';
import { frameBatch } from './frame-batch';

export const convKey = (teamId: string, agentId: string, userId: string): string => `${teamId}/${agentId}/${userId}`;

/** A message typed while a reply was still coming: it is sent when that reply ends. */
export interface QueuedChat {
  id: string;
  text: string;
}

/** One token with ms since the turn started (committed once per frame). */
interface TimedToken {
  ms: number;
  token: string;
}

/** Per-turn numbers shown under an agent reply. */
export interface ChatTurnStats {
  turnId: string | null;
  startedAt: number | null;
  firstTokenMs: number | null;
  tokensPerSec: number | null;
  tokenCount: number;
  conversationId: string | null;
  actions: string[];
  tokensUsed: number | null;
}

interface ChatConversation {
  teamId: string;
  agentId: string;
  userId: string;
  messageIds: string[];
  loaded: boolean;
  /** True from the moment a message is sent until its turn ends. */
  busy: boolean;
  activeTurnId: string | null;
  lastUserText: string | null;
  /** Why the last send could not start (the typed text stays in the box). */
  error: ErrorDTO | null;
  /** Messages waiting for the running reply to end, oldest first. */
  queue: QueuedChat[];
  /** Why the queue waits for the person instead of sending on (the reply was stopped or failed, or a queued message could not start). */
  queueHeld: 'stopped' | 'failed' | ErrorDTO | null;
}

export interface ChatSlice {
  chatConvs: Record<string, ChatConversation>;
  chatMessages: Record<string, ChatMessageDTO>;
  chatStats: Record<string, ChatTurnStats>;
  /** Stream frames as received, by turn id, once asked for (loadChatFrames). */
  chatRawFrames: Record<string, ChatFramesDTO>;
  /** Loads the conversation's transcript (once). */
  openChat(teamId: string, agentId: string, userId: string): Promise<void>;
  /**
   * Starts a turn; resolves with the error when it could not start (nothing is added then). While a
   * reply is coming the message is queued instead: it is sent when that reply ends.
   */
  sendChat(teamId: string, agentId: string, userId: string, text: string): Promise<ErrorDTO | null>;
  cancelQueuedChat(teamId: string, agentId: string, userId: string, id: string): void;
  /** Sends the first queued message of a held queue now. */
  resumeChatQueue(teamId: string, agentId: string, userId: string): Promise<void>;
  /** Forgets a conversation and its messages in this window (its transcript was deleted). */
  forgetChat(teamId: string, agentId: string, userId: string): void;
  stopChat(teamId: string, agentId: string, userId: string): Promise<void>;
  /** Sends the last user message again. */
  retryChat(teamId: string, agentId: string, userId: string): Promise<ErrorDTO | null>;
  applyChatToken(turnId: string, token: string): void;
  applyChatDone(turnId: string, result: ChatResultDTO): void;
  applyChatError(turnId: string, error: ErrorDTO): void;
  /** Fetches the turn's stream frames as received (again while it streams). */
  loadChatFrames(turnId: string): Promise<void>;
}

type S = ChatSlice;
const MAX_ORPHANS = 32;
/** Turns whose raw frames stay loaded. */
const MAX_RAW_TURNS = 20;

interface LiveTurn {
  conv: string;
  msgId: string;
  startedAt: number;
  firstTokenAt: number | null;
  tokenCount: number;
  stopped: boolean;
}

type Early =
  | { kind: 'token'; token: string; at: number }
  | { kind: 'done'; result: ChatResultDTO }
  | { kind: 'error'; error: ErrorDTO };

function emptyConv(teamId: string, agentId: string, userId: string): ChatConversation {
  return {
    teamId,
    agentId,
    userId,
    messageIds: [],
    loaded: false,
    busy: false,
    activeTurnId: null,
    lastUserText: null,
    error: null,
    queue: [],
    queueHeld: null,
  };
}

function statsFromResult(base: Partial<ChatTurnStats>, result: ChatResultDTO | undefined): ChatTurnStats {
  const u = result?.usage;
  return {
    turnId: base.turnId ?? null,
    startedAt: base.startedAt ?? null,
    // The main process measures both on its own clock: its numbers win over this window's estimate.
    firstTokenMs:
      typeof result?.firstTokenMs === 'number' ? Math.round(result.firstTokenMs) : (base.firstTokenMs ?? null),
    tokensPerSec:
      typeof result?.tokensPerSec === 'number'
        ? Math.round(result.tokensPerSec * 10) / 10
        : (base.tokensPerSec ?? null),
    tokenCount: base.tokenCount ?? 0,
    conversationId: result?.conversationId ?? null,
    actions: result?.actions.map((a) => a.name) ?? [],
    tokensUsed: u
      ? (u.totalTokens ??
        (u.inputTokens !== undefined || u.outputTokens !== undefined
          ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0)
          : null))
      : null,
  };
}

export const chatSlice: Slice<ChatSlice> = ({ set, get, api, env }) => {
  const live = new Map<string, LiveTurn>();
  /** Events for turns whose startTurn answer has not arrived yet (events may overtake it). */
  const early = new Map<string, Early[]>();

  const patchConv = (key: string, patch: Partial<ChatConversation>) =>
    set((s) => {
      const c = s.chatConvs[key];
      return c ? { chatConvs: { ...s.chatConvs, [key]: { ...c, ...patch } } } : {};
    });

  /** Tokens by turn, committed in one store update per frame. */
  const tokens = frameBatch<TimedToken>(env.nextFrame, (batch) =>
    set((s) => {
      const messages = { ...s.chatMessages };
      const stats = { ...s.chatStats };
      for (const [turnId, list] of batch) {
        const t = live.get(turnId);
        if (!t) continue;
        const m = messages[t.msgId];
        if (!m) continue;
        messages[t.msgId] = { ...m, text: m.text + list.map((f) => f.token).join('') };
        const st = stats[t.msgId];
        if (st && st.firstTokenMs === null && t.firstTokenAt !== null)
          stats[t.msgId] = { ...st, firstTokenMs: t.firstTokenAt - t.startedAt, tokenCount: t.tokenCount };
        else if (st) stats[t.msgId] = st.tokenCount === t.tokenCount ? st : { ...st, tokenCount: t.tokenCount };
      }
      return { chatMessages: messages, chatStats: stats };
    }),
  );

  const applyToken = (turnId: string, token: string, at: number): void => {
    const t = live.get(turnId);
    if (!t || t.stopped) return;
    if (t.firstTokenAt === null) t.firstTokenAt = at;
    t.tokenCount += 1;
    tokens.push(turnId, { ms: at - t.startedAt, token });
  };

  const finish = (turnId: string, result: ChatResultDTO | null, error: ErrorDTO | null): void => {
    const t = live.get(turnId);
    if (!t) return;
    tokens.flush();
    live.delete(turnId);
    const end = env.now();
    const out = result?.usage.outputTokens ?? (t.tokenCount > 0 ? t.tokenCount : null);
    const genMs = t.firstTokenAt !== null ? end - t.firstTokenAt : null;
    const tps = out !== null && genMs !== null && genMs > 0 ? Math.round((out / (genMs / 1000)) * 10) / 10 : null;
    set((s) => {
      const m = s.chatMessages[t.msgId];
      const st = s.chatStats[t.msgId];
      const conv = s.chatConvs[t.conv];
      const patch: Partial<S> = {};
      if (m) {
        const status = t.stopped ? 'stopped' : error ? 'error' : 'done';
        // The done result's reply wins only when no token streamed (a non-streaming fallback).
        const text = m.text === '' && result ? result.reply : m.text;
        patch.chatMessages = {
          ...s.chatMessages,
          [t.msgId]: { ...m, text, status, ...(result ? { result } : {}), ...(error && !t.stopped ? { error } : {}) },
        };
      }
      if (st) {
        const base = {
          ...st,
          tokenCount: t.tokenCount,
          tokensPerSec: tps,
          firstTokenMs: t.firstTokenAt !== null ? t.firstTokenAt - t.startedAt : null,
        };
        patch.chatStats = { ...s.chatStats, [t.msgId]: result ? statsFromResult(base, result) : base };
      }
      if (conv && conv.activeTurnId === turnId) {
        const held = t.stopped ? 'stopped' : error ? 'failed' : conv.queueHeld;
        patch.chatConvs = {
          ...s.chatConvs,
          [t.conv]: { ...conv, busy: false, activeTurnId: null, queueHeld: conv.queue.length ? held : null },
        };
      }
      return patch;
    });
    void sendNext(t.conv);
  };

  /** A finished reply lets the next queued message go, unless the queue is held. */
  const sendNext = async (key: string): Promise<void> => {
    const c = get().chatConvs[key];
    const next = c?.queue[0];
    if (!c || !next || c.busy || c.queueHeld) return;
    patchConv(key, { queue: c.queue.slice(1) });
    const err = await send(c.teamId, c.agentId, c.userId, next.text);
    if (err) {
      // It could not start: back at the head of the queue, which now waits for the person.
      const now = get().chatConvs[key];
      if (now) patchConv(key, { queue: [next, ...now.queue], queueHeld: err, error: null });
    }
  };

  const handleEarly = (turnId: string, ev: Early): void => {
    const list = early.get(turnId) ?? [];
    list.push(ev);
    early.set(turnId, list);
    while (early.size > MAX_ORPHANS) early.delete(early.keys().next().value as string);
  };

  const ensureConv = (teamId: string, agentId: string, userId: string): string => {
    const key = convKey(teamId, agentId, userId);
    if (!get().chatConvs[key])
      set((s) => ({ chatConvs: { ...s.chatConvs, [key]: emptyConv(teamId, agentId, userId) } }));
    return key;
  };

  const send = async (teamId: string, agentId: string, userId: string, text: string): Promise<ErrorDTO | null> => {
    const key = ensureConv(teamId, agentId, userId);
    const conv = get().chatConvs[key];
    if (conv?.busy) {
      patchConv(key, { queue: [...conv.queue, { id: localId('q'), text }] });
      return null;
    }
    patchConv(key, { busy: true, error: null });
    const startedAt = env.now();
    const r = await api['chat.startTurn']({ teamId, agentId, userId, message: text });
    if (!r.ok) {
      patchConv(key, { busy: false, error: r.error });
      return r.error;
    }
    const { turnId } = r.value;
    const userMsg: ChatMessageDTO = { id: `u-${turnId}`, role: 'user', text, at: startedAt };
    const agentMsg: ChatMessageDTO = {
      id: `a-${turnId}`,
      turnId,
      role: 'agent',
      text: '',
      at: startedAt,
      status: 'streaming',
    };
    live.set(turnId, { conv: key, msgId: agentMsg.id, startedAt, firstTokenAt: null, tokenCount: 0, stopped: false });
    set((s) => {
      const c = s.chatConvs[key] ?? emptyConv(teamId, agentId, userId);
      return {
        chatMessages: { ...s.chatMessages, [userMsg.id]: userMsg, [agentMsg.id]: agentMsg },
        chatStats: { ...s.chatStats, [agentMsg.id]: statsFromResult({ turnId, startedAt }, undefined) },
        chatConvs: {
          ...s.chatConvs,
          [key]: {
            ...c,
            messageIds: [...c.messageIds, userMsg.id, agentMsg.id],
            activeTurnId: turnId,
            lastUserText: text,
          },
        },
      };
    });
    const queued = early.get(turnId);
    early.delete(turnId);
    for (const ev of queued ?? []) {
      if (ev.kind === 'token') applyToken(turnId, ev.token, ev.at);
      else if (ev.kind === 'done') finish(turnId, ev.result, null);
      else finish(turnId, null, ev.error);
    }
    return null;
  };

  return {
    chatConvs: {},
    chatMessages: {},
    chatStats: {},
    chatRawFrames: {},
    openChat: async (teamId, agentId, userId) => {
      const key = ensureConv(teamId, agentId, userId);
      if (get().chatConvs[key]?.loaded) return;
      const r = await api['chat.transcript']({ teamId, agentId, userId });
      if (!r.ok) {
        patchConv(key, { error: r.error, loaded: true });
        return;
      }
      set((s) => {
        const c = s.chatConvs[key] ?? emptyConv(teamId, agentId, userId);
        const messages = { ...s.chatMessages };
        const stats = { ...s.chatStats };
        for (const m of r.value) {
          messages[m.id] = m;
          if (m.role === 'agent' && m.result) stats[m.id] = statsFromResult({}, m.result);
        }
        const fromHistory = r.value.map((m) => m.id);
        const ids = [...fromHistory, ...c.messageIds.filter((id) => !fromHistory.includes(id))];
        const lastUser = [...r.value].reverse().find((m) => m.role === 'user');
        return {
          chatMessages: messages,
          chatStats: stats,
          chatConvs: {
            ...s.chatConvs,
            [key]: { ...c, messageIds: ids, loaded: true, lastUserText: c.lastUserText ?? lastUser?.text ?? null },
          },
        };
      });
    },
    sendChat: send,
    stopChat: async (teamId, agentId, userId) => {
      const key = convKey(teamId, agentId, userId);
      const turnId = get().chatConvs[key]?.activeTurnId;
      if (!turnId) return;
      const t = live.get(turnId);
      if (t) t.stopped = true;
      tokens.flush();
      await api['chat.stopTurn']({ turnId });
      // Whatever the core answers, the turn is over for this window; a late done still adds its numbers.
      if (t && live.has(turnId)) {
        set((s) => {
          const m = s.chatMessages[t.msgId];
          const c = s.chatConvs[key];
          return {
            ...(m ? { chatMessages: { ...s.chatMessages, [t.msgId]: { ...m, status: 'stopped' } } } : {}),
            ...(c
              ? {
                  chatConvs: {
                    ...s.chatConvs,
                    [key]: { ...c, busy: false, activeTurnId: null, queueHeld: c.queue.length ? 'stopped' : null },
                  },
                }
              : {}),
          };
        });
      }
    },
    cancelQueuedChat: (teamId, agentId, userId, id) => {
      const key = convKey(teamId, agentId, userId);
      const c = get().chatConvs[key];
      if (!c) return;
      const queue = c.queue.filter((q) => q.id !== id);
      patchConv(key, { queue, queueHeld: queue.length ? c.queueHeld : null });
    },
    resumeChatQueue: async (teamId, agentId, userId) => {
      const key = convKey(teamId, agentId, userId);
      patchConv(key, { queueHeld: null });
      await sendNext(key);
    },
    forgetChat: (teamId, agentId, userId) => {
      const key = convKey(teamId, agentId, userId);
      set((s) => {
        const c = s.chatConvs[key];
        if (!c) return {};
        const chatConvs = { ...s.chatConvs };
        delete chatConvs[key];
        const chatMessages = { ...s.chatMessages };
        const chatStats = { ...s.chatStats };
        for (const id of c.messageIds) {
          delete chatMessages[id];
          delete chatStats[id];
        }
        return { chatConvs, chatMessages, chatStats };
      });
    },
    retryChat: async (teamId, agentId, userId) => {
      const last = get().chatConvs[convKey(teamId, agentId, userId)]?.lastUserText;
      if (!last) return null;
      return send(teamId, agentId, userId, last);
    },
    applyChatToken: (turnId, token) => {
      if (live.has(turnId)) applyToken(turnId, token, env.now());
      else handleEarly(turnId, { kind: 'token', token, at: env.now() });
    },
    applyChatDone: (turnId, result) => {
      if (live.has(turnId)) finish(turnId, result, null);
      else handleEarly(turnId, { kind: 'done', result });
    },
    applyChatError: (turnId, error) => {
      if (live.has(turnId)) finish(turnId, null, error);
      else handleEarly(turnId, { kind: 'error', error });
    },
    loadChatFrames: async (turnId) => {
      const r = await api['chat.frames']({ turnId });
      if (!r.ok) return;
      set((s) => {
        const others = Object.entries(s.chatRawFrames).filter(([id]) => id !== turnId);
        const kept = others.length >= MAX_RAW_TURNS ? others.slice(others.length - MAX_RAW_TURNS + 1) : others;
        return { chatRawFrames: { ...Object.fromEntries(kept), [turnId]: r.value } };
      });
    },
  };
};
