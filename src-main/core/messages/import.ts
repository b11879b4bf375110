// Messages as stored rows (from a delivery's message or a send record), and the first start after the
// upgrade: what the earlier files held (the send log, the tunnel log's message deliveries, state.json
// with its read marks, local names, deletions and retention) goes into the database once, in receive
// order. Deleted (tombstoned) messages are not imported; read marks by time become marks by receive
// order; state.json is removed afterwards (the database holds its names and marks now).
import { unlink } from 'node:fs/promises';
import type { Logger } from '../ports';
import type { DeliveryBody } from '../tunnel';
import { contactKey, inboundOf, type InboundMessage } from './inbound';
import type { SendLog, SendRecord } from './send-log';
import { DAY_MS, DEFAULT_RETENTION_DAYS, legacyStateFile, readLegacyState } from './state';
import type { Message, MessageStore } from './store';

/** An inbound message as a row: ordered by when it was received; its own timestamp kept as data. */
export function inboundMessage(m: InboundMessage, receivedAt: number): Message {
  const msg: Message = {
    key: m.messageId,
    agentId: m.agentId,
    contact: m.contact,
    seq: 0,
    at: receivedAt,
    direction: m.fromMe ? 'out' : 'in',
    fromMe: m.fromMe,
    type: m.type,
    text: m.text,
    messageId: m.messageId,
    deliveryId: m.deliveryId,
  };
  if (m.eventAt !== undefined) msg.eventAt = m.eventAt;
  if (m.media) msg.media = m.media;
  if (m.simulated === true) msg.simulated = true;
  return msg;
}

/** A send record as a row. */
export function sendMessage(r: SendRecord): Message {
  const msg: Message = {
    key: r.messageId !== undefined && r.messageId !== '' ? r.messageId : `send:${r.id}`,
    agentId: r.agentId,
    contact: contactKey(r.to),
    seq: 0,
    at: r.at,
    direction: 'out',
    fromMe: false,
    type: r.kind,
    text: r.text ?? '',
    status: r.error ? 'failed' : (r.status ?? 'sent'),
    via: r.via,
    teamId: r.teamId,
    sendId: r.id,
  };
  if (r.mediaUrl !== undefined)
    msg.media = r.filename !== undefined ? { url: r.mediaUrl, filename: r.filename } : { url: r.mediaUrl };
  if (r.messageId !== undefined && r.messageId !== '') msg.messageId = r.messageId;
  if (r.error) msg.error = r.error;
  if (r.clientRef !== undefined) msg.clientRef = r.clientRef;
  if (r.sentBy !== undefined) msg.sentBy = r.sentBy;
  return msg;
}

export interface ImportOptions {
  dataDir: string;
  sendLog: SendLog;
  deliveries: Iterable<DeliveryBody>;
  now: number;
  logger: Logger;
  /** Remove state.json once imported (not for a reader's database in memory). */
  removeFiles: boolean;
}

export interface Imported {
  messages: number;
  retentionDays: number;
  /** Bytes of the send log taken. */
  sendOffset: number;
  /** The newest receive time of the deliveries taken. */
  logUntil: number;
}

const CHUNK = 5000;

export async function importLegacy(store: MessageStore, o: ImportOptions): Promise<Imported> {
  const state = await readLegacyState(o.dataDir);
  const retentionDays = state?.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const cutoff = o.now - retentionDays * DAY_MS;
  // Earlier, a message's time was its event's timestamp: deletions and read marks were by that time.
  const oldTime = (m: Message): number => m.eventAt ?? m.at;
  const hidden = (m: Message): boolean =>
    (state?.tombstones ?? []).some(
      (t) => t.agentId === m.agentId && (t.contact === undefined || t.contact === m.contact) && oldTime(m) <= t.upTo,
    );
  const list: Array<{ message: Message; wins: boolean }> = [];
  let logUntil = 0;
  for (const d of o.deliveries) {
    logUntil = Math.max(logUntil, d.receivedAt);
    const m = inboundOf(d);
    if (m) list.push({ message: inboundMessage(m, d.receivedAt), wins: false });
  }
  const { records, next } = await o.sendLog.readFrom(0);
  for (const r of records) list.push({ message: sendMessage(r), wins: true });
  // Receive order: the earlier index kept no receive seq, the receive (or send) time is the order.
  const kept = list.filter((x) => !hidden(x.message)).sort((a, b) => a.message.at - b.message.at);
  // Read up to the newest message each conversation's mark covered.
  const readUpTo = new Map<string, number>();
  let count = 0;
  for (let i = 0; i < kept.length; i += CHUNK) {
    const added = await store.add(kept.slice(i, i + CHUNK), cutoff);
    count += added.length;
    for (const { message: m } of added) {
      const mark = state?.read[m.agentId]?.[m.contact];
      if (mark !== undefined && oldTime(m) <= mark) {
        const k = `${m.agentId}\n${m.contact}`;
        readUpTo.set(k, Math.max(readUpTo.get(k) ?? 0, m.seq));
      }
    }
  }
  for (const [k, seq] of readUpTo) {
    const [agentId, contact] = k.split('\n') as [string, string];
    await store.markRead(agentId, contact, seq);
  }
  for (const [contact, name] of Object.entries(state?.names ?? {})) await store.setName(contact, name);
  if (o.removeFiles && state !== null) await unlink(legacyStateFile(o.dataDir)).catch(() => undefined);
  if (count > 0) o.logger.info('messages: the earlier messages were imported into the database', { count });
  return { messages: count, retentionDays, sendOffset: next, logUntil };
}
