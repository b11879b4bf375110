// A stored delivery as a message: only verified `message.received` events count, each body parsed
// once (the log's bodies() hands over the body without parsing the record around it). The media
// object is read at the top level or under `message` (its place is not documented);
// `message.fromMe: true` is a message sent from the phone itself. Anything else yields null (the
// delivery stays in the tunnel's inspector, it is just not a message).
import type { DeliveryBody } from '../tunnel';

export interface InboundMessage {
  /** The service's message.id (duplicates share it). */
  messageId: string;
  deliveryId: string;
  agentId: string;
  /** The other party in digits (or as given, for a group): the sender, or the recipient when fromMe. */
  contact: string;
  /** ms epoch: the event's own timestamp, when it has one (the sender's clock: data, never the order). */
  eventAt?: number;
  fromMe: boolean;
  type: string;
  text: string;
  media?: { url?: string; filename?: string; mimeType?: string; size?: number };
  simulated?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function mediaOf(m: unknown): InboundMessage['media'] | undefined {
  if (!isObj(m)) return undefined;
  const out: NonNullable<InboundMessage['media']> = {};
  const url = str(m.url);
  const filename = str(m.filename) ?? str(m.fileName);
  const mimeType = str(m.mimeType) ?? str(m.mimetype);
  if (url !== undefined) out.url = url;
  if (filename !== undefined) out.filename = filename;
  if (mimeType !== undefined) out.mimeType = mimeType;
  if (typeof m.size === 'number') out.size = m.size;
  return out;
}

/** The contact key of a number or JID: digits for a person, the JID for a group. */
export function contactKey(numberOrJid: string): string {
  const s = numberOrJid.trim();
  const at = s.indexOf('@');
  if (at >= 0) return s.toLowerCase().endsWith('@s.whatsapp.net') ? s.slice(0, at) : s.toLowerCase();
  return s.replace(/^\+/, '');
}

/** The event that carries a message. */
const MESSAGE_EVENT = 'message.received';

/** The deliveries of a log that may be messages (authentic message.received ones), oldest first. */
export function messageBodies(log: { bodies(event: string): Iterable<DeliveryBody> }): Iterable<DeliveryBody> {
  return log.bodies(MESSAGE_EVENT);
}

/** The payload of a delivery body, or null when it is not a message.received event. */
function inboundOfBody(body: unknown, d: Pick<DeliveryBody, 'id' | 'agentId'>): InboundMessage | null {
  if (!isObj(body) || body.event !== MESSAGE_EVENT) return null;
  const m = isObj(body.message) ? body.message : {};
  const messageId = str(m.id);
  const fromMe = m.fromMe === true;
  // From the phone, the other party is the chat's recipient (its place is not documented either).
  const other = fromMe
    ? (str(m.to) ?? str(body.to) ?? str(m.chatId) ?? str(body.from))
    : (str(body.from) ?? str(m.from));
  if (messageId === undefined || other === undefined || other.trim() === '') return null;
  const ts = str(body.timestamp) ?? str(m.timestamp);
  const parsed = ts !== undefined ? Date.parse(ts) : NaN;
  // A media message may carry its caption as `caption` beside an empty `text`.
  const text = str(m.text) || str(m.caption) || '';
  // One literal with every field (absent ones undefined): one object shape for every message.
  return {
    messageId,
    deliveryId: d.id,
    agentId: d.agentId,
    contact: contactKey(other),
    eventAt: Number.isFinite(parsed) ? parsed : undefined,
    fromMe,
    type: str(m.type) ?? 'text',
    text,
    media: mediaOf(body.media) ?? mediaOf(m.media),
    simulated: undefined,
  };
}

/** A verified delivery's message, or null (refused, not a message event, unreadable body). */
export function inboundOf(d: DeliveryBody): InboundMessage | null {
  if (!d.ok || d.event !== MESSAGE_EVENT) return null;
  let body: unknown;
  try {
    body = JSON.parse(d.body.toString('utf8'));
  } catch {
    return null;
  }
  const msg = inboundOfBody(body, d);
  if (msg && d.simulated) msg.simulated = true;
  return msg;
}
