// Reading a chat answer (ASSUMPTION A-CHAT-RESP) in the shapes a service may use: the reply under
// `reply`, `message`, `text`, `content`, `response`, `answer`, `output` (a string, an object holding
// it, or content blocks), OpenAI `choices`, a message list; actions, token counts and the
// conversation id in their usual places. An answer without reply text is not a success.
import { firstStr, holder, num, obj, ShapeError, str, type Obj } from './parse';
import type { ChatAction, ChatResult, ChatUsage } from './types';

const REPLY_KEYS = [
  'reply',
  'message',
  'text',
  'content',
  'response',
  'answer',
  'output',
  'output_text',
  'completion',
  'generated_text',
];

/** Text of a reply value: a string, an object holding it, or a list of content blocks joined. */
function textOf(v: unknown, depth = 0): string | undefined {
  if (typeof v === 'string') return v;
  if (depth > 4) return undefined;
  if (Array.isArray(v)) {
    const parts = v.map((x) => textOf(x, depth + 1)).filter((x): x is string => x !== undefined);
    return parts.length > 0 ? parts.join('') : undefined;
  }
  const o = obj(v);
  if (!o) return undefined;
  // A tool-use block, a reasoning block…: not reply text.
  if (typeof o.type === 'string' && !/text|message|output|answer|content/i.test(o.type)) return undefined;
  for (const k of ['content', 'text', 'value', 'message', 'reply', 'answer', 'output']) {
    const t = textOf(o[k], depth + 1);
    if (t !== undefined) return t;
  }
  return undefined;
}

/** The reply text, from any of the accepted places; '' when there is none. */
function replyOf(o: Obj): string {
  for (const k of REPLY_KEYS) {
    const t = textOf(o[k]);
    if (t !== undefined && t.trim() !== '') return t;
  }
  const choice = Array.isArray(o.choices) ? obj(o.choices[0]) : undefined;
  if (choice) {
    const t = textOf(choice.message) ?? textOf(choice.text) ?? textOf(choice.delta);
    if (t !== undefined && t.trim() !== '') return t;
  }
  // A message list: the last one the agent wrote (never the person's own, echoed back).
  if (Array.isArray(o.messages)) {
    const mine = (m: Obj | undefined) => typeof m?.role === 'string' && /^(assistant|agent|bot|model)$/i.test(m.role);
    const last = [...o.messages].reverse().map(obj).find(mine);
    const t = textOf(last);
    if (t !== undefined && t.trim() !== '') return t;
  }
  return '';
}

function actionName(a: Obj): string {
  const fn = obj(a.function);
  return (
    firstStr(a, ['name']) ??
    (fn ? firstStr(fn, ['name']) : undefined) ??
    firstStr(a, ['tool', 'action', 'tool_name', 'type']) ??
    'unknown'
  );
}

function actionsFrom(v: unknown): ChatAction[] {
  if (!Array.isArray(v)) return [];
  const out: ChatAction[] = [];
  for (const a of v) {
    if (typeof a === 'string') out.push({ name: a });
    else {
      const rec = obj(a);
      if (rec) out.push({ ...rec, name: actionName(rec) });
    }
  }
  return out;
}

const ACTION_KEYS = ['actions', 'actionsCalled', 'actions_called', 'tool_calls', 'toolCalls', 'tools_called'];

function actionsOf(o: Obj): ChatAction[] {
  for (const k of ACTION_KEYS) {
    if (Array.isArray(o[k])) return actionsFrom(o[k]);
  }
  const message = obj(Array.isArray(o.choices) ? obj(o.choices[0])?.message : undefined);
  return message ? actionsFrom(message.tool_calls) : [];
}

function usageFromObject(u: Obj): ChatUsage {
  const out: ChatUsage = {};
  const pick = (keys: string[]) => {
    for (const k of keys) {
      const n = num(u[k]);
      if (n !== undefined) return n;
    }
    return undefined;
  };
  const input = pick(['inputTokens', 'input_tokens', 'prompt_tokens', 'promptTokens', 'promptTokenCount', 'input']);
  const output = pick([
    'outputTokens',
    'output_tokens',
    'completion_tokens',
    'completionTokens',
    'candidatesTokenCount',
    'output',
  ]);
  const total = pick(['totalTokens', 'total_tokens', 'totalTokenCount', 'total']);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (total !== undefined) out.totalTokens = total;
  else if (input !== undefined && output !== undefined) out.totalTokens = input + output;
  return out;
}

const USAGE_KEYS = ['usage', 'tokens', 'tokensUsed', 'tokens_used', 'usage_metadata', 'usageMetadata'];

export function usageOf(o: Obj): ChatUsage {
  for (const k of USAGE_KEYS) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v)) return { totalTokens: v };
    const u = obj(v);
    if (u) {
      const r = usageFromObject(u);
      if (Object.keys(r).length > 0) return r;
    }
  }
  const meta = obj(o.metadata);
  return meta ? usageOf(meta) : {};
}

const CONVERSATION_KEYS = ['conversationId', 'conversation_id', 'threadId', 'thread_id', 'sessionId', 'session_id'];

export function conversationIdOf(o: Obj): string | null {
  return firstStr(o, CONVERSATION_KEYS) ?? firstStr(obj(o.conversation) ?? {}, ['id']) ?? str(o.conversation) ?? null;
}

/** Every field of a chat answer, without judging it: the reply is '' when none was found. */
export function readChatResult(body: unknown): ChatResult {
  const top = obj(body) ?? {};
  const o = holder(body, [...REPLY_KEYS, 'choices']) ?? top;
  return {
    reply: replyOf(o),
    conversationId: conversationIdOf(o) ?? conversationIdOf(top),
    actions: actionsOf(o),
    usage: usageOf(o),
    raw: body,
  };
}

/** A chat answer that must hold reply text (ASSUMPTION A-CHAT-RESP). */
export function parseChatResult(body: unknown): ChatResult {
  const r = readChatResult(body);
  if (r.reply.trim() === '')
    throw new ShapeError('UNREADABLE_REPLY', "The agent's reply could not be read: the answer held no reply text.");
  return r;
}
