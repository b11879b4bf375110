// Tolerant parsing of the service's answers (the "client accepts" column of
// docs/service-assumptions.md). Unknown fields are
// ignored, an unknown `state` is kept verbatim, and a field of the wrong type counts as absent.
import { z } from 'zod';
import { ServerError } from './errors';
import type {
  ChannelSettings,
  ChatAction,
  ChatResult,
  ChatUsage,
  ContactCheck,
  SendResult,
  SessionStatus,
  WebhookConfig,
} from './types';

const optStr = z.string().optional().catch(undefined);
const optBool = z.boolean().optional().catch(undefined);
const optNum = z.number().finite().optional().catch(undefined);
const optStrOrNum = z.union([z.string(), z.number().finite()]).optional().catch(undefined);

const objectBody = z.record(z.string(), z.unknown());

function asObject(body: unknown, what: string): Record<string, unknown> {
  const r = objectBody.safeParse(body);
  if (!r.success || Array.isArray(body)) {
    throw new ServerError({ code: 'UNEXPECTED_RESPONSE', message: `The service answered ${what} with something that is not a JSON object.` });
  }
  return r.data;
}

function firstStr(o: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = optStrOrNum.parse(o[k]);
    if (v !== undefined && v !== '') return String(v);
  }
  return undefined;
}

function firstBool(o: Record<string, unknown>, keys: string[]): boolean | undefined {
  for (const k of keys) {
    const v = optBool.parse(o[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

// ---- session (ASSUMPTION A-STATE, A-PAIRING, A-UNLINKED, A-RECONNECTING, A-LIVE) ----------------

export function parseSessionStatus(body: unknown): SessionStatus {
  const o = asObject(body, 'the session status');
  const connected = optBool.parse(o.connected) ?? false;
  const qrRaw = optStr.parse(o.qr);
  const qr = qrRaw && qrRaw !== '' ? qrRaw : null;
  const phoneRaw = firstStr(o, ['phone']);
  const phone = phoneRaw ? phoneRaw.replace(/^\+/, '') : null;
  const linked = optBool.parse(o.linked) ?? (connected || phone !== null);
  // needsScan is what decisions use; when absent, a QR on offer or no link at all means a scan is due.
  const needsScan = firstBool(o, ['needsScan', 'needs_scan']) ?? (qr !== null || (!linked && !connected));
  const state = optStr.parse(o.state) ?? (connected ? 'connected' : 'unknown');
  const out: SessionStatus = { connected, linked, state, needsScan, phone, qr };
  const live = optBool.parse(o.live);
  if (live !== undefined) out.live = live;
  return out;
}

/** The reply to POST .../session is not relied on (ASSUMPTION A-SESSION-POST): a status object if present. */
export function parseOptionalSessionStatus(body: unknown): SessionStatus | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  const looksLikeStatus = ['connected', 'linked', 'state', 'needsScan', 'qr'].some((k) => k in o);
  return looksLikeStatus ? parseSessionStatus(o) : null;
}

// ---- send (ASSUMPTION A-SEND-EXTRA) -----------------------------------------------------------

export function parseSendResult(body: unknown, to: string): SendResult {
  const o = body === undefined ? {} : asObject(body, 'the send');
  const out: SendResult = {
    status: firstStr(o, ['status']) ?? 'sent',
    messageId: firstStr(o, ['messageId', 'message_id', 'id']) ?? '',
    to: firstStr(o, ['to']) ?? to,
  };
  const type = optStr.parse(o.type);
  if (type !== undefined) out.type = type;
  const timestamp = optStrOrNum.parse(o.timestamp);
  if (timestamp !== undefined) out.timestamp = String(timestamp);
  return out;
}

// ---- webhook (ASSUMPTION A-WEBHOOK-RESP) -------------------------------------------------------

export function parseWebhookConfig(body: unknown, url: string): WebhookConfig {
  const o = asObject(body, 'the webhook update');
  const out: WebhookConfig = {
    mode: firstStr(o, ['mode']) ?? 'passthrough',
    url: firstStr(o, ['url']) ?? url,
    secret: firstStr(o, ['secret', 'signingSecret', 'signing_secret']) ?? '',
  };
  const events = z.array(z.string()).optional().catch(undefined).parse(o.events);
  if (events !== undefined) out.events = events;
  const updatedAt = optStr.parse(o.updatedAt ?? o.updated_at);
  if (updatedAt !== undefined) out.updatedAt = updatedAt;
  return out;
}

// ---- contact ---------------------------------------------------------------------------------

export function parseContactCheck(body: unknown, phone: string): ContactCheck {
  const o = asObject(body, 'the contact check');
  const p = (firstStr(o, ['phone']) ?? phone).replace(/^\+/, '');
  return {
    phone: p,
    exists: firstBool(o, ['exists', 'onWhatsApp', 'on_whatsapp', 'isOnWhatsApp']) ?? false,
    jid: firstStr(o, ['jid']) ?? `${p}@s.whatsapp.net`,
  };
}

// ---- settings (ASSUMPTION A-SETTINGS) -----------------------------------------------------------

export function parseSettings(body: unknown, sent: Partial<ChannelSettings>): ChannelSettings {
  const o = body === undefined ? {} : asObject(body, 'the settings update');
  const inner = typeof o.settings === 'object' && o.settings !== null ? (o.settings as Record<string, unknown>) : o;
  return {
    groups: firstBool(inner, ['groups']) ?? sent.groups ?? false,
    readReceipts: firstBool(inner, ['readReceipts', 'read_receipts']) ?? sent.readReceipts ?? false,
    deliveryReceipts: firstBool(inner, ['deliveryReceipts', 'delivery_receipts']) ?? sent.deliveryReceipts ?? false,
  };
}

// ---- chat (ASSUMPTION A-CHAT-RESP) --------------------------------------------------------------

function replyFrom(o: Record<string, unknown>): string | undefined {
  for (const k of ['reply', 'message', 'text', 'content', 'response']) {
    const v = o[k];
    if (typeof v === 'string') return v;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const inner = (v as Record<string, unknown>).content ?? (v as Record<string, unknown>).text;
      if (typeof inner === 'string') return inner;
    }
  }
  return undefined;
}

function actionsFrom(v: unknown): ChatAction[] {
  if (!Array.isArray(v)) return [];
  const out: ChatAction[] = [];
  for (const a of v) {
    if (typeof a === 'string') out.push({ name: a });
    else if (typeof a === 'object' && a !== null && !Array.isArray(a)) {
      const rec = a as Record<string, unknown>;
      const name = firstStr(rec, ['name', 'action', 'type', 'tool']) ?? 'unknown';
      out.push({ ...rec, name });
    }
  }
  return out;
}

function usageFromObject(u: Record<string, unknown>): ChatUsage {
  const out: ChatUsage = {};
  const pick = (keys: string[]) => {
    for (const k of keys) {
      const n = optNum.parse(u[k]);
      if (n !== undefined) return n;
    }
    return undefined;
  };
  const input = pick(['inputTokens', 'input_tokens', 'prompt_tokens', 'promptTokens', 'input']);
  const output = pick(['outputTokens', 'output_tokens', 'completion_tokens', 'completionTokens', 'output']);
  const total = pick(['totalTokens', 'total_tokens', 'total']);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (total !== undefined) out.totalTokens = total;
  else if (input !== undefined && output !== undefined) out.totalTokens = input + output;
  return out;
}

function usageFrom(o: Record<string, unknown>): ChatUsage {
  for (const k of ['usage', 'tokens', 'tokensUsed', 'tokens_used']) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v)) return { totalTokens: v };
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const u = usageFromObject(v as Record<string, unknown>);
      if (Object.keys(u).length > 0) return u;
    }
  }
  return {};
}

export function parseChatResult(body: unknown): ChatResult {
  const o = asObject(body, 'the chat message');
  return {
    reply: replyFrom(o) ?? '',
    conversationId: firstStr(o, ['conversationId', 'conversation_id']) ?? null,
    actions: actionsFrom(o.actions),
    usage: usageFrom(o),
    raw: body,
  };
}
