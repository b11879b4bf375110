// The port of the message store: what Messages (messages.ts) asks of the database that keeps the
// conversations. Two adapters: SQLite in the data folder (sqlite-store.ts, the default) and Postgres
// for a team hub (app/hub/message-store.ts), both held to one contract suite. Every method answers a
// promise, so an adapter over the network fits it as well as an embedded one.
//
// Read state: a store has its own (the data folder's: one person). A store shared by a team also
// keeps one per reader (a hub's member): the calls that read or mark it take an optional `reader`;
// an adapter with one read state ignores it, and no reader means the store's own.
import type { SendError, SendRecord } from './send-log';

type Direction = 'in' | 'out';

export interface Message {
  /** Unique in its agent: the service's message id, or our send id when the service gave none. */
  key: string;
  agentId: string;
  contact: string;
  /** The local receive order: what orders, retains, deletes and marks read (0 before it is stored). */
  seq: number;
  /** ms epoch, local: when it was received (inbound) or when the send settled (sends). */
  at: number;
  /** The event's own timestamp (the sender's clock): shown as data, never trusted for order. */
  eventAt?: number;
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
  /** Sends through a team hub: the member who sent it (a store without the column keeps none). */
  sentBy?: string;
}

export interface ContactSummary {
  agentId: string;
  contact: string;
  name?: string;
  /** When its latest message was received. */
  lastAt: number;
  last: Message;
  unread: number;
  count: number;
}

export interface ContactQuery {
  agentIds?: readonly string[];
  /** Only contacts whose number, local name or messages match (see search). */
  search?: string;
  /** At most this many, most recent first (default: all). */
  limit?: number;
  /** Whose unread counts the summaries carry (see the read state above; default: the store's own). */
  reader?: string;
}

/** A stored message added, with its conversation's unread count after it. */
export interface Added {
  message: Message;
  unread: number;
}

/** What a deletion took away: the tunnel's deliveries and the service's message ids of the rows. */
export interface Removed {
  count: number;
  deliveryIds: string[];
  messageIds: string[];
  conversations: Array<{ agentId: string; contact: string }>;
}

/** Which messages a deletion covers: a conversation, an agent's messages, or a contact's everywhere. */
export type RemoveScope = { agentId: string; contact?: string } | { contact: string };

/** [start, end) code-unit offsets of a match in the field named. */
type Range = [number, number];

export interface SearchQuery {
  /** Words (each a prefix), or a phone number in any written form. */
  text: string;
  agentIds?: readonly string[];
  limit: number;
}

export interface MessageHit {
  message: Message;
  field: 'text' | 'filename';
  ranges: Range[];
}

export interface ContactHit {
  contact: ContactSummary;
  field: 'contact' | 'name';
  ranges: Range[];
}

export interface SearchResult {
  messages: MessageHit[];
  contacts: ContactHit[];
}

export interface MessageStore {
  /** The database file (or ':memory:'). */
  readonly location: string;
  readonly readOnly: boolean;
  /**
   * Stores new messages in one transaction, in the order given (each gets the next receive seq).
   * Skipped: one already stored (unless `wins`: a send's record takes the place of the phone's echo
   * of it), one deleted before (its key is remembered), one received before `cutoff`. `meta`: a setting
   * (as setMeta) written in the same transaction (a log's read position with what was read from it).
   */
  add(
    msgs: ReadonlyArray<{ message: Message; wins: boolean }>,
    cutoff: number,
    meta?: { key: string; value: string; local?: boolean },
  ): Promise<Added[]>;
  has(agentId: string, key: string): Promise<boolean>;
  contacts(q: ContactQuery): Promise<ContactSummary[]>;
  /** The unread messages of each agent that has some (for `reader`, when given). */
  unreadByAgent(reader?: string): Promise<Map<string, number>>;
  /** The unread messages of one conversation (0 when there is none; for `reader`, when given). */
  unreadOf(agentId: string, contact: string, reader?: string): Promise<number>;
  /** The unread messages of each of these conversations, in their order (the store's own read state). */
  unreadOfEach(conversations: ReadonlyArray<{ agentId: string; contact: string }>): Promise<number[]>;
  /** The latest `limit` before `beforeSeq` (exclusive), oldest first. */
  thread(
    agentId: string,
    contact: string,
    opts: { beforeSeq?: number; before?: number; limit: number },
  ): Promise<{ messages: Message[]; more: boolean }>;
  find(agentId: string, key: string): Promise<Message | null>;
  /** The agent's sends from this install, newest first. */
  sent(agentId: string, limit: number): Promise<Message[]>;
  /** The newest receive seq stored (0 when empty). */
  newestSeq(): Promise<number>;
  /** Messages stored after `seq`, in receive order (a reader following the writer). */
  after(seq: number, limit: number): Promise<Message[]>;
  /**
   * Marks a conversation read up to its latest message, or up to the message `upToSeq` (receive
   * order: a message received after it stays unread); false when there is no such conversation.
   * With `reader`: that reader's mark (an adapter with reader state moves its own mark up to it too:
   * the conversation was read by someone).
   */
  markRead(agentId: string, contact: string, upToSeq?: number, reader?: string): Promise<boolean>;
  names(): Promise<Map<string, string>>;
  setName(contact: string, name: string | null): Promise<void>;
  /** Deletes the rows (and remembers their keys, so they never come back) and wipes their bytes. */
  remove(scope: RemoveScope, now: number): Promise<Removed>;
  /** Retention: rows received before `cutoff` go (and remembered keys older than it). */
  removeOlderThan(cutoff: number): Promise<Removed>;
  search(q: SearchQuery): Promise<SearchResult>;
  /** A number that changes when another process (another connection) changed the store. */
  changeMark(): Promise<number>;
  /**
   * A setting. `local`: one that belongs to the data folder (where it has read its own logs up to), not
   * to the messages: a store shared by several data folders keeps one per data folder.
   */
  meta(key: string, local?: boolean): Promise<string | null>;
  /** Every setting kept (one read at start; the data folder's own over the shared ones). */
  metas(): Promise<Map<string, string>>;
  setMeta(key: string, value: string, local?: boolean): Promise<void>;
  /** Bytes of the database on disk (its file and its write-ahead log; a server's: its tables). */
  bytesOnDisk(): Promise<number>;
  close(): Promise<void>;
}

/** Why the store cannot be used: words for people, the file named, never a message. */
export class MessageStoreError extends Error {
  constructor(
    readonly kind: 'corrupt' | 'locked' | 'unavailable' | 'read-only',
    message: string,
  ) {
    super(message);
    this.name = 'MessageStoreError';
  }
}
