// The per-agent message index, in memory: agent → contact → messages (oldest first), built from the
// verified message.received deliveries and the send log, and rebuilt from them at every start (it
// is never stored, so it can never be stale or corrupt). An inbound message appears once per
// message.id; a fromMe event for a send this install recorded is that send (the send log's record,
// with its status, wins). Retention and deletions (tombstones) hide messages; read marks give the
// unread counts. No I/O here: the owner (messages.ts) feeds it and keeps the state file.
import { contactKey, inboundOf, type InboundMessage } from './inbound';
import type { SendError, SendRecord } from './send-log';
import { DAY_MS, type MessageStateData, type Tombstone } from './state';
import type { DeliveryBody } from '../tunnel';

type Direction = 'in' | 'out';

export interface Message {
  /** Unique in its agent: the service's message id, or our send id when the service gave none. */
  key: string;
  agentId: string;
  contact: string;
  at: number;
  /** in: written by the contact; out: sent by this install or (fromMe) from the phone. */
  direction: Direction;
  fromMe: boolean;
  /** text, image, document, or the service's own word. */
  type: string;
  text: string;
  media?: { url?: string; filename?: string; mimeType?: string; size?: number };
  messageId?: string;
  /** Sends: the service's status ('sent', …) or 'failed'. */
  status?: string;
  error?: SendError;
  /** Sends: where they came from. */
  via?: SendRecord['via'];
  teamId?: string | null;
  /** Inbound: the delivery it came in (the tunnel's id), and whether it was simulated. */
  deliveryId?: string;
  simulated?: boolean;
  /** Sends: our record id. */
  sendId?: string;
  /** Sends made from a window: its reference of the send. */
  clientRef?: string;
}

export interface ContactSummary {
  agentId: string;
  contact: string;
  name?: string;
  lastAt: number;
  last: Message;
  unread: number;
  count: number;
}

export interface ContactQuery {
  agentIds?: readonly string[];
  search?: string;
}

interface Conversation {
  messages: Message[];
  /** key → message, for duplicates. */
  byKey: Map<string, Message>;
}

export class MessageIndex {
  private readonly agents = new Map<string, Map<string, Conversation>>();

  constructor(
    private state: MessageStateData,
    private readonly now: () => number,
  ) {}

  setState(state: MessageStateData): void {
    this.state = state;
  }

  /** Oldest time still kept. */
  cutoff(): number {
    return this.now() - this.state.retentionDays * DAY_MS;
  }

  /** A stored delivery; returns the message added, or null (not a message, a duplicate, hidden). */
  addDelivery(d: DeliveryBody): Message | null {
    const m = inboundOf(d);
    return m ? this.addInbound(m) : null;
  }

  addInbound(m: InboundMessage): Message | null {
    // One literal with every field (absent ones undefined): one object shape for every message.
    const msg: Message = {
      key: m.messageId,
      agentId: m.agentId,
      contact: m.contact,
      at: m.at,
      direction: m.fromMe ? 'out' : 'in',
      fromMe: m.fromMe,
      type: m.type,
      text: m.text,
      media: m.media,
      messageId: m.messageId,
      status: undefined,
      error: undefined,
      via: undefined,
      teamId: undefined,
      deliveryId: m.deliveryId,
      simulated: m.simulated === true ? true : undefined,
      sendId: undefined,
    };
    return this.insert(msg, false);
  }

  addSend(r: SendRecord): Message | null {
    const msg: Message = {
      key: r.messageId !== undefined && r.messageId !== '' ? r.messageId : `send:${r.id}`,
      agentId: r.agentId,
      contact: contactKey(r.to),
      at: r.at,
      direction: 'out',
      fromMe: false,
      type: r.kind,
      text: r.text ?? '',
      media:
        r.mediaUrl === undefined
          ? undefined
          : r.filename !== undefined
            ? { url: r.mediaUrl, filename: r.filename }
            : { url: r.mediaUrl },
      messageId: r.messageId || undefined,
      status: r.error ? 'failed' : (r.status ?? 'sent'),
      error: r.error,
      via: r.via,
      teamId: r.teamId,
      deliveryId: undefined,
      simulated: undefined,
      sendId: r.id,
      clientRef: r.clientRef,
    };
    return this.insert(msg, true);
  }

  private hidden(m: Pick<Message, 'agentId' | 'contact' | 'at'>): boolean {
    if (m.at < this.cutoff()) return true;
    return this.state.tombstones.some(
      (t) => t.agentId === m.agentId && (t.contact === undefined || t.contact === m.contact) && m.at <= t.upTo,
    );
  }

  private insert(msg: Message, wins: boolean): Message | null {
    if (this.hidden(msg)) return null;
    let convs = this.agents.get(msg.agentId);
    if (!convs) this.agents.set(msg.agentId, (convs = new Map()));
    let conv = convs.get(msg.contact);
    if (!conv) convs.set(msg.contact, (conv = { messages: [], byKey: new Map() }));
    const had = conv.byKey.get(msg.key);
    if (had) {
      if (!wins || had.sendId !== undefined) return null;
      // The phone's echo of our own send: the send's record (with its status) takes its place.
      Object.assign(had, msg);
      return had;
    }
    conv.byKey.set(msg.key, msg);
    const list = conv.messages;
    // Mostly appended in order; an older one is put in its place.
    let i = list.length;
    while (i > 0 && list[i - 1]!.at > msg.at) i--;
    if (i === list.length) list.push(msg);
    else list.splice(i, 0, msg);
    return msg;
  }

  /** Contacts, most recent activity first. */
  contacts(q: ContactQuery = {}): ContactSummary[] {
    const cutoff = this.cutoff();
    const needle = q.search?.trim().toLowerCase() ?? '';
    const out: ContactSummary[] = [];
    const agentIds = q.agentIds ?? [...this.agents.keys()];
    for (const agentId of agentIds) {
      const convs = this.agents.get(agentId);
      if (!convs) continue;
      for (const [contact, conv] of convs) {
        this.prune(conv, cutoff);
        const last = conv.messages[conv.messages.length - 1];
        if (!last) continue;
        const name = this.state.names[contact];
        if (needle !== '' && !this.matches(contact, name, conv, needle)) continue;
        const s: ContactSummary = {
          agentId,
          contact,
          lastAt: last.at,
          last,
          unread: this.unreadOf(agentId, contact, conv),
          count: conv.messages.length,
        };
        if (name !== undefined) s.name = name;
        out.push(s);
      }
    }
    return out.sort((a, b) => b.lastAt - a.lastAt || a.contact.localeCompare(b.contact));
  }

  private matches(contact: string, name: string | undefined, conv: Conversation, needle: string): boolean {
    if (contact.includes(needle.replace(/^\+/, ''))) return true;
    if (name?.toLowerCase().includes(needle)) return true;
    return conv.messages.some(
      (m) => m.text.toLowerCase().includes(needle) || (m.media?.filename?.toLowerCase().includes(needle) ?? false),
    );
  }

  private unreadOf(agentId: string, contact: string, conv: Conversation): number {
    const mark = this.state.read[agentId]?.[contact] ?? -Infinity;
    let n = 0;
    for (let i = conv.messages.length - 1; i >= 0; i--) {
      const m = conv.messages[i]!;
      if (m.at <= mark) break;
      if (m.direction === 'in') n++;
    }
    return n;
  }

  /** Unread inbound messages of one conversation (0 when there is none). */
  unread(agentId: string, contact: string): number {
    const conv = this.agents.get(agentId)?.get(contactKey(contact));
    if (!conv) return 0;
    this.prune(conv, this.cutoff());
    return this.unreadOf(agentId, contactKey(contact), conv);
  }

  /** Unread inbound messages of each agent asked for (the same counts contacts() gives, summed). */
  unreadByAgent(agentIds: Iterable<string>): Map<string, number> {
    const cutoff = this.cutoff();
    const out = new Map<string, number>();
    for (const agentId of agentIds) {
      if (out.has(agentId)) continue;
      let n = 0;
      for (const [contact, conv] of this.agents.get(agentId) ?? []) {
        this.prune(conv, cutoff);
        n += this.unreadOf(agentId, contact, conv);
      }
      out.set(agentId, n);
    }
    return out;
  }

  /** Drops what retention has hidden since it was added. */
  private prune(conv: Conversation, cutoff: number): void {
    let n = 0;
    while (n < conv.messages.length && conv.messages[n]!.at < cutoff) n++;
    if (n === 0) return;
    for (const m of conv.messages.splice(0, n)) conv.byKey.delete(m.key);
  }

  /** One thread, oldest first: the `limit` latest before `before` (ms epoch, exclusive). */
  thread(
    agentId: string,
    contact: string,
    opts: { before?: number; limit: number },
  ): { messages: Message[]; more: boolean } {
    const conv = this.agents.get(agentId)?.get(contactKey(contact));
    if (!conv) return { messages: [], more: false };
    this.prune(conv, this.cutoff());
    let end = conv.messages.length;
    if (opts.before !== undefined) while (end > 0 && conv.messages[end - 1]!.at >= opts.before) end--;
    const start = Math.max(0, end - opts.limit);
    return { messages: conv.messages.slice(start, end), more: start > 0 };
  }

  /** The agent's sends from this install (any conversation), newest first, at most `limit`. */
  sent(agentId: string, limit: number): Message[] {
    const convs = this.agents.get(agentId);
    if (!convs) return [];
    const cutoff = this.cutoff();
    const out: Message[] = [];
    for (const conv of convs.values()) {
      this.prune(conv, cutoff);
      for (const m of conv.messages) if (m.via !== undefined) out.push(m);
    }
    return out.sort((a, b) => b.at - a.at).slice(0, limit);
  }

  /** The latest message time of a thread (what "read" marks up to), or null. */
  latestAt(agentId: string, contact: string): number | null {
    const list = this.agents.get(agentId)?.get(contactKey(contact))?.messages;
    return list && list.length > 0 ? list[list.length - 1]!.at : null;
  }

  /** Applies a tombstone to what is in memory. */
  forget(t: Tombstone): void {
    const convs = this.agents.get(t.agentId);
    if (!convs) return;
    for (const [contact, conv] of convs) {
      if (t.contact !== undefined && t.contact !== contact) continue;
      const kept = conv.messages.filter((m) => m.at > t.upTo);
      for (const m of conv.messages) if (m.at <= t.upTo) conv.byKey.delete(m.key);
      conv.messages = kept;
      if (kept.length === 0) convs.delete(contact);
    }
  }

  /** One message of an agent by its key, or null (unknown, past retention or deleted). */
  find(agentId: string, key: string): Message | null {
    const convs = this.agents.get(agentId);
    if (!convs) return null;
    for (const conv of convs.values()) {
      const m = conv.byKey.get(key);
      if (m) return this.hidden(m) ? null : m;
    }
    return null;
  }

  /** Every message in memory (tests and the bench). */
  get size(): number {
    let n = 0;
    for (const convs of this.agents.values()) for (const c of convs.values()) n += c.messages.length;
    return n;
  }
}
