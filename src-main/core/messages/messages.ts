// The Messages side of a data folder: the message database (the store port, store.ts; SQLite in
// <data>/messages/messages.db unless a store is given: a hub's is Postgres, shared by its replicas), the
// send log every send is recorded in, and the media cache. Messages
// are kept, not derived: a verified message.received delivery is written when the receiver stored it
// (after its acknowledgement, never on its path: deliveries queue and are written on the next turn),
// a send when the send log has it. Retention is the setting's alone. The first start on a data folder
// that has no database imports what the earlier files hold (import.ts).
//
// The writer (the companion) writes; a reader (readOnly: the CLI with no companion running) reads the
// database as it is and sees what was stored since it opened; with no database yet it builds one in
// memory from the logs, as the writer's import would.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Emitter, type Unsubscribe } from '../events';
import { silentLogger, type Logger } from '../ports';
import { serial } from '../serial';
import { deliveryBody, type DeliveryBody, type StoredDelivery } from '../tunnel';
import { ensurePrivateDir } from '../tunnel/private-files';
import { exportConversation, type ExportFormat, type ExportedConversation } from './export';
import { contactKey, inboundOf } from './inbound';
import { importLegacy, inboundMessage, sendMessage } from './import';
import { MediaCache, type MediaStore } from './media-cache';
import { SendLog } from './send-log';
import { SqliteMessageStore } from './sqlite-store';
import { DAY_MS, DEFAULT_RETENTION_DAYS } from './state';
import type {
  Added,
  ContactQuery,
  ContactSummary,
  Message,
  MessageStore,
  RemoveScope,
  SearchQuery,
  SearchResult,
} from './store';

export interface MessagesOptions {
  dataDir: string;
  now(): number;
  logger?: Logger;
  readOnly?: boolean;
  /** The bound of the media cache in bytes (default 200 MiB). */
  mediaMaxBytes?: number;
  /** Where the messages' files are kept (a hub: its database); default: the media cache of the data folder. */
  media?: MediaStore;
  /** Makes the tunnel log's copies of these deliveries unreadable (a deletion's last step). */
  eraseDeliveries?: (ids: readonly string[]) => Promise<void>;
  /**
   * The message store, open and migrated (default: SQLite in the data folder). Closed by close(). The
   * settings that are the data folder's own (how far its logs were read) are kept as `local` ones.
   */
  store?: MessageStore;
  /**
   * Who reads now (a hub's acting member), whose read state the lists, counts and marks are; null or
   * absent: the store's own (the data folder's one person), as the counts kept at hand always are.
   */
  reader?: () => string | null;
}

export interface MessagesEvents {
  /** A message was stored (a delivery taken or a send recorded). */
  message: Message;
  /** Read marks, names, deletions or retention changed. */
  changed: { agentId: string | null };
}

/** The database file in a data folder. */
function messagesDbFile(dataDir: string): string {
  return path.join(dataDir, 'messages', 'messages.db');
}

const META_RETENTION = 'retention_days';
/** Retention runs at start, when the setting changes, and at the first look an hour after it last ran. */
const COMPACT_EVERY_MS = 3600_000;
const META_SEND_OFFSET = 'send_log_offset';
/** The newest receive time of the deliveries taken (a log read again is taken from there on). */
const META_LOG_UNTIL = 'log_until';

/**
 * Unread counts at hand (the notification policy and the tray ask synchronously): every agent's, and
 * those of the conversations this process stored a message of or was asked about (else 0: use unread()).
 */
export interface UnreadCounts {
  unread(agentId: string, contact: string): number;
  unreadByAgent(agentIds: Iterable<string>): Map<string, number>;
}

const convKey = (agentId: string, contact: string) => `${agentId}\n${contact}`;

export class Messages {
  readonly sendLog: SendLog;
  /** The files of messages fetched from the service (`<data>/messages/media/`). */
  readonly media: MediaStore;
  readonly events: Emitter<MessagesEvents>;
  readonly index: UnreadCounts;
  private readonly logger: Logger;
  private store: MessageStore | null = null;
  /**
   * Resolves once the unread counts and local names are at hand (index, name()): a writer reads them
   * after the first list can be answered (the list's rows carry their own counts and names).
   */
  loaded: Promise<void> = Promise.resolve();
  /** Resolves once open()'s catch-up (retention, the sends and deliveries stored meanwhile) is done. */
  ready: Promise<void> = Promise.resolve();
  /** When retention last ran (it runs again at a look an hour later). */
  private compactedAt = 0;
  /** Why the database cannot be used (it was left as it is), or null. */
  private failure: Error | null = null;
  /** Unread messages per agent, and per conversation for those this process stored or was asked about. */
  private agentUnread = new Map<string, number>();
  private convUnread = new Map<string, number>();
  private names = new Map<string, string>();
  private retention = DEFAULT_RETENTION_DAYS;
  /** Bytes of the send log already taken. */
  private sendOffset = 0;
  private logUntil = 0;
  /** Deliveries the receiver stored, written on the next turn (never on the acknowledgement's path). */
  private queue: StoredDelivery[] = [];
  private flushing: Promise<void> | null = null;
  /** Writes of this process, one at a time. */
  private readonly inTurn = serial();
  /** A reader's: the newest seq it has seen, and the messages of the logs not in the database yet. */
  private seenSeq = 0;
  /**
   * Seqs this process stored above seenSeq (announced already): a look passes them, not over them, so a
   * message another process stored below one of them is still taken.
   */
  private readonly ownSeqs = new Set<number>();
  private readonly overlay = new Set<string>();
  /** The store's change mark when this process last looked (changes of other processes move it). */
  private mark = -1;

  constructor(private readonly o: MessagesOptions) {
    this.logger = o.logger ?? silentLogger;
    this.sendLog = new SendLog(o.dataDir);
    this.media =
      o.media ??
      new MediaCache({
        dir: path.join(o.dataDir, 'messages', 'media'),
        now: o.now,
        logger: this.logger,
        ...(o.mediaMaxBytes !== undefined ? { maxBytes: o.mediaMaxBytes } : {}),
      });
    this.events = new Emitter<MessagesEvents>((err) =>
      this.logger.warn('messages: listener failed', { error: err instanceof Error ? err.message : String(err) }),
    );
    this.index = {
      unread: (agentId, contact) => this.convUnread.get(convKey(agentId, contactKey(contact))) ?? 0,
      unreadByAgent: (agentIds) => {
        const out = new Map<string, number>();
        for (const a of agentIds) out.set(a, this.agentUnread.get(a) ?? 0);
        return out;
      },
    };
  }

  on<K extends keyof MessagesEvents>(name: K, fn: (p: MessagesEvents[K]) => void): Unsubscribe {
    return this.events.on(name, fn);
  }

  /** The database file. */
  get file(): string {
    return messagesDbFile(this.o.dataDir);
  }

  /** Why the messages cannot be read or written now (a damaged or locked database), or null. */
  problem(): Error | null {
    return this.failure;
  }

  private need(): MessageStore {
    if (this.store) return this.store;
    throw this.failure ?? new Error('the messages are not open');
  }

  private cutoff(): number {
    return this.o.now() - this.retention * DAY_MS;
  }

  /**
   * Opens the database (the writer creates and migrates it), imports the earlier files on the first
   * start, takes the sends and deliveries stored while no writer ran, and applies retention.
   * `deliveries`: the tunnel log's message deliveries (messageBodies()), read only when needed. A
   * damaged or locked database does not throw: problem() says why, and every request answers it.
   */
  async open(deliveries: Iterable<DeliveryBody>): Promise<void> {
    const file = this.file;
    const fresh = this.o.store === undefined && !existsSync(file);
    const inMemory = this.o.readOnly === true && fresh;
    try {
      if (fresh && !inMemory) await ensurePrivateDir(path.dirname(file));
      this.store =
        this.o.store ??
        SqliteMessageStore.open({
          file: inMemory ? ':memory:' : file,
          readOnly: this.o.readOnly === true && !inMemory,
        });
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.logger.warn('messages: the message database cannot be used', { file, error: this.failure.message });
      return;
    }
    const store = this.store;
    let meta = await store.metas();
    if (!meta.has(META_RETENTION) && !store.readOnly) {
      const r = await importLegacy(store, {
        dataDir: this.o.dataDir,
        sendLog: this.sendLog,
        deliveries,
        now: this.o.now(),
        logger: this.logger,
        removeFiles: !inMemory,
      });
      await store.setMeta(META_SEND_OFFSET, String(r.sendOffset), true);
      await store.setMeta(META_LOG_UNTIL, String(r.logUntil), true);
      await store.setMeta(META_RETENTION, String(r.retentionDays));
      meta = await store.metas();
    }
    this.retention = Number(meta.get(META_RETENTION) ?? DEFAULT_RETENTION_DAYS);
    this.sendOffset = Number(meta.get(META_SEND_OFFSET) ?? 0);
    this.logUntil = Number(meta.get(META_LOG_UNTIL) ?? 0);
    this.seenSeq = await store.newestSeq();
    this.mark = await store.changeMark();
    if (store.readOnly) {
      await this.reload();
      return;
    }
    // After the first list can be shown: the unread counts and names, then retention and what was
    // stored while no writer ran (sends the CLI recorded, deliveries `listen` took), each announced.
    this.loaded = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.load());
    this.ready = this.loaded.then(() => this.catchUp(deliveries));
  }

  /** The unread counts and names (a change another process made since open() read it is announced). */
  private async load(): Promise<void> {
    try {
      const mark = this.mark;
      await this.reload();
      if ((await this.need().changeMark()) !== mark) this.events.emit('changed', { agentId: null });
    } catch (err) {
      this.logger.warn('messages: could not read the unread counts and names', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private async catchUp(deliveries: Iterable<DeliveryBody>): Promise<void> {
    try {
      await this.compact();
      const fresh = [...(await this.readSends()), ...(await this.takeBodies(deliveries))];
      for (const m of fresh) this.events.emit('message', m);
    } catch (err) {
      this.logger.warn('messages: could not take what was stored while the app was not running', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Reads the counts, names and retention again (after another process changed them). */
  private async reload(): Promise<void> {
    const store = this.need();
    await this.readUnread();
    this.names = await store.names();
    this.retention = Number((await store.meta(META_RETENTION)) ?? DEFAULT_RETENTION_DAYS);
  }

  /** The unread counts again: every agent's, and those of the conversations kept at hand. */
  private async readUnread(): Promise<void> {
    const store = this.need();
    this.agentUnread = await store.unreadByAgent();
    // One read for all of them (a store over the network answers in one round trip).
    const keys = [...this.convUnread.keys()];
    const counts = await store.unreadOfEach(
      keys.map((k) => {
        const [agentId, contact] = k.split('\n') as [string, string];
        return { agentId, contact };
      }),
    );
    keys.forEach((k, i) => this.convUnread.set(k, counts[i] ?? 0));
  }

  /** Stores messages; updates the counts; emits each new one. */
  private async store_(
    list: Array<{ message: Message; wins: boolean }>,
    meta?: { key: string; value: string; local: boolean },
  ): Promise<Message[]> {
    await this.loaded;
    const store = this.need();
    if (store.readOnly) return this.overlayOf(list);
    const added: Added[] = await store.add(list, this.cutoff(), meta);
    for (const a of added) {
      const k = convKey(a.message.agentId, a.message.contact);
      const had = this.convUnread.get(k);
      this.convUnread.set(k, a.unread);
      // A new inbound message adds one; a send taking the place of its echo changes nothing.
      if (a.message.direction === 'in' && (had === undefined || a.unread > had))
        this.agentUnread.set(a.message.agentId, (this.agentUnread.get(a.message.agentId) ?? 0) + 1);
      if (a.message.seq > this.seenSeq) this.ownSeqs.add(a.message.seq);
    }
    return added.map((a) => a.message);
  }

  /** A reader's: what the logs hold that the database does not (yet), each once. */
  private async overlayOf(list: Array<{ message: Message; wins: boolean }>): Promise<Message[]> {
    const out: Message[] = [];
    for (const { message: m } of list) {
      const id = `${m.agentId}\n${m.key}`;
      if (this.overlay.has(id) || m.at < this.cutoff() || (await this.need().has(m.agentId, m.key))) continue;
      this.overlay.add(id);
      out.push(m);
    }
    return out;
  }

  /** The send log's records appended since the last read (another process's sends too). */
  private readSends(): Promise<Message[]> {
    return this.inTurn(async () => {
      const { records, next, reset } = await this.sendLog.readFrom(this.sendOffset);
      if (reset) this.logger.info('messages: the send log was rewritten; reading it again');
      const list = records.map((r) => ({ message: sendMessage(r), wins: true }));
      // The read position goes with what was read (one transaction); unmoved, nothing is written.
      const moved = next !== this.sendOffset && !this.need().readOnly;
      const added = await this.store_(
        list,
        moved ? { key: META_SEND_OFFSET, value: String(next), local: true } : undefined,
      );
      this.sendOffset = next;
      return added;
    });
  }

  /** Deliveries of a log (read again): those received since the last taken, and any not stored. */
  private takeBodies(deliveries: Iterable<DeliveryBody>): Promise<Message[]> {
    return this.inTurn(async () => {
      const list: Array<{ message: Message; wins: boolean }> = [];
      let until = this.logUntil;
      for (const d of deliveries) {
        if (d.receivedAt < this.logUntil) continue;
        const m = inboundOf(d);
        until = Math.max(until, d.receivedAt);
        if (m) list.push({ message: inboundMessage(m, d.receivedAt), wins: false });
      }
      const moved = until !== this.logUntil && !this.need().readOnly;
      const added = await this.store_(
        list,
        moved ? { key: META_LOG_UNTIL, value: String(until), local: true } : undefined,
      );
      if (moved) this.logUntil = until;
      return added;
    });
  }

  /**
   * A delivery the tunnel stored. Only queued here: the receiver calls this before it answers, and
   * the database is written on the next turn (flush); 'message' is emitted once it is stored.
   */
  takeDelivery(d: StoredDelivery): void {
    // A database that cannot be used keeps nothing in memory: the tunnel's log has the delivery, and
    // a new database imports what the log holds.
    if (!d.verdict.ok || d.summary.event !== 'message.received' || this.failure !== null) return;
    this.queue.push(d);
    if (this.queue.length === 1) setImmediate(() => void this.flush());
  }

  /** Writes the queued deliveries; resolves once they are stored (or kept queued when it failed). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.queue.length > 0 ? this.flush() : undefined));
    if (this.queue.length === 0 || !this.store) return Promise.resolve();
    const batch = this.queue;
    this.queue = [];
    const p = this.inTurn(async () => {
      const list: Array<{ message: Message; wins: boolean }> = [];
      let until = this.logUntil;
      for (const d of batch) {
        const m = inboundOf(deliveryBody(d));
        until = Math.max(until, d.receivedAt);
        if (m) list.push({ message: inboundMessage(m, d.receivedAt), wins: false });
      }
      try {
        // The log's read position in the same transaction as the messages.
        const moved = until !== this.logUntil;
        const added = await this.store_(
          list,
          moved ? { key: META_LOG_UNTIL, value: String(until), local: true } : undefined,
        );
        if (moved) this.logUntil = until;
        for (const m of added) this.events.emit('message', m);
      } catch (err) {
        // Locked or failing: kept, tried again with the next delivery or look (the tunnel log has them too).
        this.queue = [...batch, ...this.queue];
        this.logger.warn('messages: could not store messages; kept to try again', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }).finally(() => {
      this.flushing = null;
    });
    this.flushing = p;
    return p;
  }

  /**
   * Takes what is new: queued deliveries, the send log's new records, the deliveries of a log read
   * again (when given), and what another process stored in the database. Each new message is
   * emitted, in receive order.
   */
  async refresh(deliveries?: Iterable<DeliveryBody>): Promise<Message[]> {
    if (!this.store) return [];
    await this.ready;
    await this.flush();
    if (!this.need().readOnly && this.o.now() - this.compactedAt > COMPACT_EVERY_MS) await this.compact();
    const fresh = [...(await this.readSends()), ...(deliveries ? await this.takeBodies(deliveries) : [])];
    const mark = await this.need().changeMark();
    if (mark !== this.mark) {
      // Another process wrote: its messages, and its marks, names, deletions or retention.
      this.mark = mark;
      const others = await this.need().after(this.seenSeq, 10_000);
      for (const m of others) {
        this.seenSeq = Math.max(this.seenSeq, m.seq);
        if (!this.ownSeqs.delete(m.seq)) fresh.push(m);
      }
      const state = () =>
        JSON.stringify([[...this.agentUnread], [...this.convUnread], [...this.names], this.retention]);
      const before = state();
      await this.reload();
      if (state() !== before) this.events.emit('changed', { agentId: null });
    } else {
      // No other process wrote since the last look: every seq up to this process's newest is its own.
      for (const seq of this.ownSeqs) this.seenSeq = Math.max(this.seenSeq, seq);
      this.ownSeqs.clear();
    }
    fresh.sort((a, b) => a.seq - b.seq);
    for (const m of fresh) this.events.emit('message', m);
    return fresh;
  }

  /** A send recorded by this process: the send log is read up to it, each new message emitted. */
  async takeSend(): Promise<void> {
    await this.refresh();
  }

  /** The reader now, when there is one (see MessagesOptions.reader). */
  private reader(): string | undefined {
    return this.o.reader?.() ?? undefined;
  }

  async contacts(q: ContactQuery = {}): Promise<ContactSummary[]> {
    const reader = this.reader();
    return this.need().contacts(reader !== undefined ? { ...q, reader } : q);
  }

  /** The unread messages of each of these agents, as the reader now sees them (index.unreadByAgent without one). */
  async unreadCounts(agentIds: readonly string[]): Promise<Map<string, number>> {
    const reader = this.reader();
    if (reader === undefined) return this.index.unreadByAgent(agentIds);
    const all = await this.need().unreadByAgent(reader);
    return new Map(agentIds.map((a) => [a, all.get(a) ?? 0]));
  }

  async thread(
    agentId: string,
    contact: string,
    opts: { before?: number; beforeSeq?: number; limit: number },
  ): Promise<{ messages: Message[]; more: boolean }> {
    return this.need().thread(agentId, contactKey(contact), opts);
  }

  /** One message of an agent by its key (MessageDTO.key), or null. */
  async message(agentId: string, key: string): Promise<Message | null> {
    return this.need().find(agentId, key);
  }

  /** The agent's sends from this install, newest first (the console's "Sent from here"). */
  async sent(agentId: string, limit: number): Promise<Message[]> {
    return this.need().sent(agentId, limit);
  }

  async search(q: SearchQuery): Promise<SearchResult> {
    return this.need().search(q);
  }

  /** A conversation in a file's format, oldest first. */
  async export(agentId: string, contact: string, format: ExportFormat): Promise<ExportedConversation> {
    const key = contactKey(contact);
    await this.loaded;
    const { messages } = await this.need().thread(agentId, key, { limit: Infinity });
    return exportConversation({ agentId, contact: key, name: this.names.get(key), messages, format });
  }

  /** The unread messages of one conversation, read from the store (and kept at hand for index.unread). */
  async unread(agentId: string, contact: string): Promise<number> {
    const key = contactKey(contact);
    const n = await this.need().unreadOf(agentId, key);
    this.convUnread.set(convKey(agentId, key), n);
    return n;
  }

  retentionDays(): number {
    return this.retention;
  }

  name(contact: string): string | undefined {
    return this.names.get(contactKey(contact));
  }

  /** Marks a thread read up to its latest message (by receive order). */
  async markRead(agentId: string, contact: string, upToSeq?: number): Promise<void> {
    const key = contactKey(contact);
    await this.flush();
    const reader = this.reader();
    if (!(await this.inTurn(() => this.need().markRead(agentId, key, upToSeq, reader)))) return;
    this.convUnread.set(convKey(agentId, key), 0);
    await this.readUnread();
    this.events.emit('changed', { agentId });
  }

  /** A local name for a contact ('' removes it). */
  async setName(contact: string, name: string): Promise<void> {
    const key = contactKey(contact);
    const n = name.trim();
    await this.inTurn(() => this.need().setName(key, n === '' ? null : n));
    if (n === '') this.names.delete(key);
    else this.names.set(key, n);
    this.events.emit('changed', { agentId: null });
  }

  async setRetentionDays(days: number): Promise<void> {
    await this.inTurn(() => this.need().setMeta(META_RETENTION, String(days)));
    this.retention = days;
    await this.compact();
    this.events.emit('changed', { agentId: null });
  }

  /** Deletes one conversation (contact given) or every conversation of the agent. */
  delete(agentId: string, contact?: string): Promise<{ removed: number; removedSends: number }> {
    const key = contact !== undefined ? contactKey(contact) : undefined;
    return this.remove(key !== undefined ? { agentId, contact: key } : { agentId });
  }

  /** Deletes a contact's data: its conversations with every agent, and its local name. */
  deleteContact(contact: string): Promise<{ removed: number; removedSends: number }> {
    return this.remove({ contact: contactKey(contact) });
  }

  /**
   * The rows and their text leave the database file (and its write-ahead log), their sends the send
   * log, their files the media cache, and the tunnel log's copies become unreadable.
   */
  private async remove(scope: RemoveScope): Promise<{ removed: number; removedSends: number }> {
    await this.flush();
    const now = this.o.now();
    const gone = await this.inTurn(() => this.need().remove(scope, now));
    const agentId = 'agentId' in scope ? scope.agentId : undefined;
    const contact = scope.contact;
    for (const c of gone.conversations) this.convUnread.delete(convKey(c.agentId, c.contact));
    await this.readUnread();
    if (agentId === undefined) this.names.delete(contact!);
    const removedSends = await this.inTurn(async () => {
      const n = await this.sendLog.removeWhere(
        (r) =>
          (agentId === undefined || r.agentId === agentId) && (contact === undefined || contactKey(r.to) === contact),
      );
      this.sendOffset = await this.sendLog.size();
      await this.need().setMeta(META_SEND_OFFSET, String(this.sendOffset), true);
      return n;
    });
    // Their fetched files go too (every file of the agent's when all its messages go).
    if (agentId !== undefined && contact === undefined) await this.media.remove(agentId);
    else {
      const agents = new Set(gone.conversations.map((c) => c.agentId));
      for (const a of agents) await this.media.remove(a, gone.messageIds);
    }
    if (gone.deliveryIds.length > 0 && this.o.eraseDeliveries) await this.o.eraseDeliveries(gone.deliveryIds);
    this.events.emit('changed', { agentId: agentId ?? null });
    return { removed: gone.count, removedSends };
  }

  /** Retention: messages received before it leave the database, the send log and the media cache. */
  async compact(): Promise<void> {
    const cutoff = this.cutoff();
    this.compactedAt = this.o.now();
    const gone = await this.inTurn(() => this.need().removeOlderThan(cutoff));
    const sends = await this.inTurn(async () => {
      const n = await this.sendLog.removeWhere((r) => r.at < cutoff);
      if (n > 0) {
        this.sendOffset = await this.sendLog.size();
        await this.need().setMeta(META_SEND_OFFSET, String(this.sendOffset), true);
      }
      return n;
    });
    await this.media.removeOlderThan(cutoff);
    if (gone.count > 0 || sends > 0) await this.readUnread();
  }

  /** Bytes of the database on disk. */
  async bytesOnDisk(): Promise<number> {
    return this.need().bytesOnDisk();
  }

  async close(): Promise<void> {
    await this.ready;
    await this.flush().catch(() => undefined);
    await this.inTurn.idle();
    await this.store?.close();
    this.store = null;
  }
}
