// A message as both stores' rows hold it (snake_case columns, sqlite-schema.ts and the hub's message-schema.ts):
// SQLite answers integers (bigint for large ones) and 0/1 flags, Postgres numbers as text or numbers and booleans.
import type { Message } from './store';

type Row = Record<string, unknown>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const flag = (v: unknown): boolean => v === true || num(v) === 1;
const has = (v: unknown): boolean => v !== null && v !== undefined;

/** The message of a row of the messages table. */
export function messageOfRow(r: Row): Message {
  const media: NonNullable<Message['media']> = {};
  if (has(r.media_url)) media.url = String(r.media_url);
  if (has(r.filename)) media.filename = String(r.filename);
  if (has(r.media_mime)) media.mimeType = String(r.media_mime);
  if (has(r.media_size)) media.size = num(r.media_size);
  const m: Message = {
    key: String(r.key),
    agentId: String(r.agent_id),
    contact: String(r.contact),
    seq: num(r.seq),
    at: num(r.received_at),
    direction: r.direction === 'in' ? 'in' : 'out',
    fromMe: flag(r.from_me),
    type: String(r.type),
    text: String(r.text),
  };
  if (has(r.event_at)) m.eventAt = num(r.event_at);
  if (Object.keys(media).length > 0) m.media = media;
  if (has(r.message_id)) m.messageId = String(r.message_id);
  if (has(r.status)) m.status = String(r.status);
  if (has(r.error)) m.error = JSON.parse(String(r.error)) as NonNullable<Message['error']>;
  if (has(r.via)) m.via = String(r.via) as NonNullable<Message['via']>;
  if (has(r.send_id)) m.teamId = has(r.team_id) ? String(r.team_id) : null;
  if (has(r.delivery_id)) m.deliveryId = String(r.delivery_id);
  if (flag(r.simulated)) m.simulated = true;
  if (has(r.send_id)) m.sendId = String(r.send_id);
  if (has(r.client_ref)) m.clientRef = String(r.client_ref);
  if (has(r.sent_by)) m.sentBy = String(r.sent_by);
  return m;
}
