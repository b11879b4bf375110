// Tolerant reading of the service's answers (the "client accepts" column of
// docs/service-assumptions.md). Unknown fields are ignored, an unknown `state` is kept verbatim, a
// field of the wrong type counts as absent, and one wrapping object (`data`, `result`, …) is looked
// through. But an answer in which none of the fields a reader needs can be found is NOT a success
// with empty values: the reader throws ShapeError, which the client turns into UnreadableResponse
// carrying what came (raw.ts). ASSUMPTION A-UNKNOWN-SHAPE
import type { ChannelSettings, ContactCheck, SendResult, SessionStatus, WebhookConfig } from './types';
import { CompanionError } from '../errors';

/** An answer none of whose known fields could be found; the client adds the raw response. */
export class ShapeError extends CompanionError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ShapeError';
  }
}

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

export function str(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function firstStr(o: Obj, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = str(o[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

function firstBool(o: Obj, keys: readonly string[]): boolean | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
  }
  return undefined;
}

const hasAny = (o: Obj, keys: readonly string[]): boolean => keys.some((k) => o[k] !== undefined && o[k] !== null);

const WRAPPERS = ['data', 'result', 'payload', 'body'];

/**
 * The object that holds `keys`: the answer itself, or the one object it wraps them in (under
 * `data`, `result`, … or `extra` wrappers such as `session`). Arrays give their first element.
 */
export function holder(body: unknown, keys: readonly string[], extra: readonly string[] = []): Obj | undefined {
  const top = obj(Array.isArray(body) ? body[0] : body);
  if (!top) return undefined;
  if (hasAny(top, keys)) return top;
  for (const w of [...extra, ...WRAPPERS]) {
    const inner = obj(Array.isArray(top[w]) ? (top[w] as unknown[])[0] : top[w]);
    if (inner && hasAny(inner, keys)) return inner;
  }
  return undefined;
}

function unreadable(what: string, wanted: string): ShapeError {
  return new ShapeError(
    'UNREADABLE_RESPONSE',
    `The service answered ${what} in a shape the client could not read (no ${wanted}).`,
  );
}

// ---- session (ASSUMPTION A-STATE, A-PAIRING, A-UNLINKED, A-RECONNECTING, A-LIVE) ----------------

const SESSION_KEYS = ['connected', 'linked', 'needsScan', 'needs_scan', 'state', 'qr', 'qrCode', 'qr_code'];

export function parseSessionStatus(body: unknown): SessionStatus {
  const o = holder(body, SESSION_KEYS, ['session']);
  if (!o) throw unreadable('the session status', 'connected, linked, needsScan, state or qr');
  const stateRaw = typeof o.state === 'string' ? o.state : typeof o.status === 'string' ? o.status : undefined;
  const stateWord = stateRaw?.toLowerCase();
  const connected =
    firstBool(o, ['connected']) ?? (stateWord === 'connected' || stateWord === 'open' || stateWord === 'online');
  const qrRaw = firstStr(o, ['qr', 'qrCode', 'qr_code']);
  const qr = qrRaw ?? null;
  const phoneRaw = firstStr(o, ['phone', 'phoneNumber', 'phone_number', 'number']);
  const phone = phoneRaw ? phoneRaw.replace(/^\+/, '') : null;
  const linked = firstBool(o, ['linked']) ?? (connected || phone !== null || stateWord === 'reconnecting');
  // needsScan is what decisions use; when absent, a QR on offer or no link at all means a scan is due.
  const needsScan = firstBool(o, ['needsScan', 'needs_scan']) ?? (qr !== null || (!linked && !connected));
  const state = stateRaw ?? (connected ? 'connected' : 'unknown');
  const out: SessionStatus = { connected, linked, state, needsScan, phone, qr };
  const live = firstBool(o, ['live']);
  if (live !== undefined) out.live = live;
  return out;
}

/** The reply to POST .../session is not relied on (ASSUMPTION A-SESSION-POST): a status object if present. */
export function parseOptionalSessionStatus(body: unknown): SessionStatus | null {
  return holder(body, SESSION_KEYS, ['session']) ? parseSessionStatus(body) : null;
}

// ---- send (ASSUMPTION A-SEND-EXTRA) -----------------------------------------------------------

const FAILED_STATUSES = new Set(['failed', 'failure', 'error', 'rejected', 'undelivered']);

function messageIdOf(o: Obj): string | undefined {
  const direct = firstStr(o, ['messageId', 'message_id', 'id', 'wamid']);
  if (direct !== undefined) return direct;
  const list = o.messages;
  const first = Array.isArray(list) ? obj(list[0]) : (obj(o.message) ?? obj(o.key));
  return first ? firstStr(first, ['id', 'messageId', 'message_id']) : undefined;
}

export function parseSendResult(body: unknown, to: string): SendResult {
  const o =
    holder(body, ['messageId', 'message_id', 'id', 'wamid', 'messages'], ['message']) ??
    holder(body, ['status'], ['message']);
  if (!o) throw unreadable('the send', 'messageId or status');
  const status = firstStr(o, ['status']);
  const messageId = messageIdOf(o);
  if (status !== undefined && FAILED_STATUSES.has(status.toLowerCase())) {
    throw new ShapeError(
      'SEND_FAILED',
      `The service answered the send with status "${status}"${messageId ? ` (message ${messageId})` : ''}.`,
    );
  }
  if (messageId === undefined && status === undefined) throw unreadable('the send', 'messageId or status');
  const out: SendResult = {
    status: status ?? 'sent',
    messageId: messageId ?? '',
    to: firstStr(o, ['to', 'recipient']) ?? to,
  };
  const type = firstStr(o, ['type']);
  if (type !== undefined) out.type = type;
  const timestamp = str(o.timestamp);
  if (timestamp !== undefined) out.timestamp = timestamp;
  return out;
}

// ---- webhook (ASSUMPTION A-WEBHOOK-RESP) -------------------------------------------------------

const SECRET_KEYS = ['secret', 'signingSecret', 'signing_secret', 'webhookSecret', 'webhook_secret'];

export function parseWebhookConfig(body: unknown, url: string): WebhookConfig {
  const o = holder(body, ['mode', 'url', ...SECRET_KEYS], ['webhook']);
  if (!o) throw unreadable('the webhook update', 'mode, url or secret');
  const out: WebhookConfig = {
    mode: firstStr(o, ['mode']) ?? 'passthrough',
    url: firstStr(o, ['url']) ?? url,
    secret: firstStr(o, SECRET_KEYS) ?? '',
  };
  if (Array.isArray(o.events) && o.events.every((e) => typeof e === 'string')) out.events = [...(o.events as string[])];
  const updatedAt = firstStr(o, ['updatedAt', 'updated_at']);
  if (updatedAt !== undefined) out.updatedAt = updatedAt;
  return out;
}

// ---- contact ---------------------------------------------------------------------------------

const EXISTS_KEYS = [
  'exists',
  'onWhatsApp',
  'on_whatsapp',
  'isOnWhatsApp',
  'is_on_whatsapp',
  'isWhatsApp',
  'registered',
  'isRegistered',
];

export function parseContactCheck(body: unknown, phone: string): ContactCheck {
  const o = holder(body, [...EXISTS_KEYS, 'status'], ['contacts', 'contact']);
  // `status: "valid" | "invalid"` is how some WhatsApp APIs say it.
  const statusWord = o && typeof o.status === 'string' ? o.status.toLowerCase() : undefined;
  const exists = o
    ? (firstBool(o, EXISTS_KEYS) ?? (statusWord === 'valid' ? true : statusWord === 'invalid' ? false : undefined))
    : undefined;
  if (!o || exists === undefined) throw unreadable('the contact check', 'exists');
  const p = (firstStr(o, ['phone', 'number', 'input', 'wa_id']) ?? phone).replace(/^\+/, '');
  const waId = firstStr(o, ['wa_id']);
  return { phone: p, exists, jid: firstStr(o, ['jid']) ?? `${waId ?? p}@s.whatsapp.net` };
}

// ---- settings (ASSUMPTION A-SETTINGS) -----------------------------------------------------------

const SETTING_KEYS = {
  groups: ['groups'],
  readReceipts: ['readReceipts', 'read_receipts'],
  deliveryReceipts: ['deliveryReceipts', 'delivery_receipts'],
} as const;

function isAcknowledgement(body: unknown): boolean {
  if (body === undefined) return true;
  const o = obj(body);
  if (!o) return false;
  const status = typeof o.status === 'string' ? o.status.toLowerCase() : undefined;
  return o.ok === true || o.success === true || status === 'ok' || status === 'updated' || status === 'success';
}

/**
 * The settings the service answered. When it accepted the change without saying what they are now
 * (an empty body or a bare `{"ok":true}`), the values sent, marked `unconfirmed`.
 */
export function parseSettings(body: unknown, sent: Partial<ChannelSettings>): ChannelSettings {
  const all = Object.values(SETTING_KEYS).flat();
  const o = holder(body, all, ['settings']);
  if (!o) {
    if (!isAcknowledgement(body)) throw unreadable('the settings update', 'groups, readReceipts or deliveryReceipts');
    return {
      groups: sent.groups ?? false,
      readReceipts: sent.readReceipts ?? false,
      deliveryReceipts: sent.deliveryReceipts ?? false,
      unconfirmed: true,
    };
  }
  return {
    groups: firstBool(o, SETTING_KEYS.groups) ?? sent.groups ?? false,
    readReceipts: firstBool(o, SETTING_KEYS.readReceipts) ?? sent.readReceipts ?? false,
    deliveryReceipts: firstBool(o, SETTING_KEYS.deliveryReceipts) ?? sent.deliveryReceipts ?? false,
  };
}
