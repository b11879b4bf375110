// The Messages side of a data folder: the send log, the state file (read marks, names, deletions,
// retention) and the index built from them and the tunnel's deliveries. The writer (the app) also
// compacts: records past retention leave the send log and old tombstones leave the state. A reader
// (readOnly: the CLI) only reads, so it is safe while the app or `listen` writes.
import path from 'node:path';
import { Emitter, type Unsubscribe } from '../events';
import { silentLogger, type Logger } from '../ports';
import { deliveryBody, type DeliveryBody, type StoredDelivery } from '../tunnel';
import { contactKey } from './inbound';
import { MediaCache } from './media-cache';
import { MessageIndex, type ContactQuery, type ContactSummary, type Message } from './message-index';
import { SendLog } from './send-log';
import { DAY_MS, MessageStateFile, emptyState, type MessageStateData, type Tombstone } from './state';

export interface MessagesOptions {
  dataDir: string;
  now(): number;
  logger?: Logger;
  readOnly?: boolean;
  /** The bound of the media cache in bytes (default 200 MiB). */
  mediaMaxBytes?: number;
}

export interface MessagesEvents {
  /** A message was stored (a delivery taken or a send recorded) and is in the index. */
  message: Message;
  /** Read marks, names, deletions or retention changed. */
  changed: { agentId: string | null };
}

export class Messages {
  readonly sendLog: SendLog;
  /** The files of messages fetched from the service (`<data>/messages/media/`). */
  readonly media: MediaCache;
  readonly events: Emitter<MessagesEvents>;
  private readonly stateFile: MessageStateFile;
  private state: MessageStateData = emptyState();
  readonly index: MessageIndex;
  private readonly logger: Logger;
  /** Bytes of the send log already read. */
  private sendOffset = 0;

  constructor(private readonly o: MessagesOptions) {
    this.logger = o.logger ?? silentLogger;
    this.sendLog = new SendLog(o.dataDir);
    this.media = new MediaCache({
      dir: path.join(o.dataDir, 'messages', 'media'),
      now: o.now,
      logger: this.logger,
      ...(o.mediaMaxBytes !== undefined ? { maxBytes: o.mediaMaxBytes } : {}),
    });
    this.stateFile = new MessageStateFile(o.dataDir, this.logger);
    this.index = new MessageIndex(this.state, o.now);
    this.events = new Emitter<MessagesEvents>((err) =>
      this.logger.warn('messages: listener failed', { error: err instanceof Error ? err.message : String(err) }),
    );
  }

  on<K extends keyof MessagesEvents>(name: K, fn: (p: MessagesEvents[K]) => void): Unsubscribe {
    return this.events.on(name, fn);
  }

  /**
   * Loads the state, compacts (the writer), and builds the index from the send log and `deliveries`
   * (the log's messageBodies()).
   */
  async open(deliveries: Iterable<DeliveryBody>): Promise<void> {
    this.state = await this.stateFile.load();
    this.index.setState(this.state);
    if (!this.o.readOnly) await this.compact();
    await this.readSends();
    for (const d of deliveries) this.index.addDelivery(d);
  }

  /** Takes the records appended to the send log since the last read (another process's sends too). */
  async readSends(): Promise<Message[]> {
    const { records, next, reset } = await this.sendLog.readFrom(this.sendOffset);
    if (reset) this.logger.info('messages: the send log was rewritten; reading it again');
    this.sendOffset = next;
    const added: Message[] = [];
    for (const r of records) {
      const m = this.index.addSend(r);
      if (m) added.push(m);
    }
    return added;
  }

  /** A delivery the tunnel stored: its message when it is a new one (and 'message' is emitted). */
  takeDelivery(d: StoredDelivery): Message | null {
    const m = this.index.addDelivery(deliveryBody(d));
    if (m) this.events.emit('message', m);
    return m;
  }

  /**
   * Takes what is new: the send log's new records (another process's sends too) and, when given,
   * the deliveries of a log read again (those already in the index are skipped). Each new message
   * is emitted, oldest first.
   */
  async refresh(deliveries?: Iterable<DeliveryBody>): Promise<Message[]> {
    await this.readState();
    const fresh = await this.readSends();
    if (deliveries) {
      for (const d of deliveries) {
        const m = this.index.addDelivery(d);
        if (m) fresh.push(m);
      }
    }
    fresh.sort((a, b) => a.at - b.at);
    for (const m of fresh) this.events.emit('message', m);
    return fresh;
  }

  /** A send recorded by this process: the send log is read up to it, each new message emitted. */
  async takeSend(): Promise<void> {
    await this.refresh();
  }

  contacts(q: ContactQuery = {}): ContactSummary[] {
    return this.index.contacts(q);
  }

  thread(
    agentId: string,
    contact: string,
    opts: { before?: number; limit: number },
  ): { messages: Message[]; more: boolean } {
    return this.index.thread(agentId, contact, opts);
  }

  /** One message of an agent by its key (MessageDTO.key), or null. */
  message(agentId: string, key: string): Message | null {
    return this.index.find(agentId, key);
  }

  /** The agent's sends from this install, newest first (the console's "Sent from here"). */
  sent(agentId: string, limit: number): Message[] {
    return this.index.sent(agentId, limit);
  }

  retentionDays(): number {
    return this.state.retentionDays;
  }

  name(contact: string): string | undefined {
    return this.state.names[contactKey(contact)];
  }

  /** Marks a thread read up to its latest message. */
  async markRead(agentId: string, contact: string): Promise<void> {
    const key = contactKey(contact);
    const at = this.index.latestAt(agentId, key);
    if (at === null) return;
    await this.update(
      (s) => ({
        ...s,
        read: {
          ...s.read,
          [agentId]: { ...(s.read[agentId] ?? {}), [key]: Math.max(at, s.read[agentId]?.[key] ?? 0) },
        },
      }),
      agentId,
    );
  }

  /** A local name for a contact ('' removes it). */
  async setName(contact: string, name: string): Promise<void> {
    const key = contactKey(contact);
    await this.update((s) => {
      const names = { ...s.names };
      if (name.trim() === '') delete names[key];
      else names[key] = name.trim();
      return { ...s, names };
    }, null);
  }

  async setRetentionDays(days: number): Promise<void> {
    await this.update((s) => ({ ...s, retentionDays: days }), null);
    await this.compact();
  }

  /** Deletes one conversation (contact given) or every conversation of the agent. */
  async delete(agentId: string, contact?: string): Promise<{ removedSends: number }> {
    const t: Tombstone = { agentId, upTo: this.o.now() };
    const key = contact !== undefined ? contactKey(contact) : undefined;
    if (key !== undefined) t.contact = key;
    const withFiles =
      key !== undefined
        ? this.index.thread(agentId, key, { limit: Infinity }).messages.flatMap((m) => m.messageId ?? [])
        : undefined;
    // The tombstone first: once it is saved, nothing deleted shows again, whatever fails after.
    await this.update((s) => ({ ...s, tombstones: [...s.tombstones, t] }), agentId);
    const removedSends = await this.sendLog.removeWhere(
      (r) => r.agentId === agentId && (key === undefined || contactKey(r.to) === key) && r.at <= t.upTo,
    );
    this.sendOffset = await this.sendLog.size();
    // Their fetched files go too (every file of the agent's when all its messages go).
    await this.media.remove(agentId, withFiles);
    return { removedSends };
  }

  /**
   * Records past retention leave the send log, and fetched files of messages past it the media
   * cache; tombstones older than retention are dropped (retention hides those messages anyway).
   */
  async compact(): Promise<void> {
    const cutoff = this.o.now() - this.state.retentionDays * DAY_MS;
    const gone = await this.sendLog.removeWhere((r) => r.at < cutoff);
    await this.media.removeOlderThan(cutoff);
    if (gone > 0) this.sendOffset = 0;
    if (this.state.tombstones.some((t) => t.upTo < cutoff))
      await this.update((s) => ({ ...s, tombstones: s.tombstones.filter((t) => t.upTo >= cutoff) }), null, false);
  }

  /**
   * Makes a change on the state file as it is now (another app on this data folder may have changed
   * it since), then follows what was written.
   */
  private async update(
    change: (s: MessageStateData) => MessageStateData,
    agentId: string | null,
    announce = true,
  ): Promise<void> {
    if (this.o.readOnly) throw new Error('the messages are open read-only');
    this.follow(await this.stateFile.change(change));
    if (announce) this.events.emit('changed', { agentId });
  }

  /**
   * Takes the state another app on this data folder wrote (read marks, names, deletions, retention),
   * when the file changed; 'changed' is emitted for every agent then.
   */
  private async readState(): Promise<void> {
    const state = await this.stateFile.readIfChanged();
    if (state === null || JSON.stringify(state) === JSON.stringify(this.state)) return;
    this.follow(state);
    this.events.emit('changed', { agentId: null });
  }

  /** Uses this state from now on; deletions it adds leave the index. */
  private follow(state: MessageStateData): void {
    const known = new Set(this.state.tombstones.map((t) => JSON.stringify(t)));
    this.state = state;
    this.index.setState(state);
    for (const t of state.tombstones) if (!known.has(JSON.stringify(t))) this.index.forget(t);
  }
}
