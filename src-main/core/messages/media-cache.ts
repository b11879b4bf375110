// The media of messages, kept in the data folder (`<data>/messages/media/`, folder 0700, files 0600)
// under a size bound: the least recently used files leave first. Each entry is the file's bytes
// (`<key>.bin`) and a small description (`<key>.json`: name, type, size, sha256). An entry whose
// bytes do not match its description (a torn write, a file changed on disk) is removed and fetched
// again; a file still being written lives in a temp folder and is renamed in whole. The bound holds
// at every moment, files being written included: a fill reserves room for its file before writing
// it (the least recently used entries leave to make it, or the fill waits for others to end), and
// the entries kept plus the room reserved never exceed the bound.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { silentLogger, type Logger } from '../ports';
import { serial } from '../serial';
import { CompanionError } from '../errors';

/** Default bound of the media cache: 200 MiB. */
const MEDIA_CACHE_MAX_BYTES = 200 * 1024 * 1024;

/** What a fill reserves beyond its file's bytes, for the entry's description (`<key>.json`). */
const META_ALLOWANCE = 1024;

export interface CachedMedia {
  /** The file's bytes, in the cache folder ('' when they are in `data`). */
  path: string;
  filename: string;
  mimeType: string;
  bytes: number;
  /** The bytes themselves, from a store that keeps no file (a hub's database). */
  data?: Buffer;
}

/** What a fill wrote: a file in the temp folder it was given. */
interface FilledMedia {
  path: string;
  filename: string;
  mimeType: string;
}

/**
 * Sets aside room for a fill's file of `bytes` (called once, before its first byte is written):
 * least recently used entries leave, or it waits while other fills hold the room.
 */
export type ReserveRoom = (bytes: number) => Promise<void>;

/**
 * Where the messages' files are kept: the data folder's cache (MediaCache), or a store shared by several
 * processes (a hub's database). An entry of an agent's message is filled once from the service, then read.
 */
export type MediaStore = Pick<MediaCache, 'get' | 'put' | 'remove' | 'removeOlderThan'>;

/** A fill refused by the cache: its file would not fit the bound, or it wrote more than it reserved. */
export class MediaCacheError extends CompanionError {
  constructor(
    readonly code: 'LARGER_THAN_CACHE' | 'NOT_RESERVED',
    message: string,
  ) {
    super(message);
    this.name = 'MediaCacheError';
  }
}

interface MediaCacheOptions {
  /** The cache folder (created 0700). */
  dir: string;
  /** The bound on the bytes kept (default MEDIA_CACHE_MAX_BYTES). */
  maxBytes?: number;
  /** ms epoch, for the last-use times. */
  now(): number;
  logger?: Logger;
}

const metaSchema = z.object({
  /** ms epoch of the message the file came with (retention). */
  at: z.number(),
  filename: z.string(),
  mimeType: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const hash = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** The agent's part of a key: every entry of one agent starts with it. */
const agentPart = (agentId: string): string => hash(`agent\0${agentId}`).slice(0, 16);

const keyOf = (agentId: string, messageId: string): string =>
  `${agentPart(agentId)}-${hash(`${agentId}\0${messageId}`).slice(0, 40)}`;

const TEMP_PREFIX = '.fill-';

const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;

/** A fill under way: the room it holds (bytes; 0 before it reserved). */
interface Fill {
  reserved: number;
}

export class MediaCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly logger: Logger;
  /** Temp folders and keys of fills under way: trimming leaves them alone (a fill's entry is half there while it is renamed in). */
  private readonly filling = new Set<string>();
  private readonly fillingKeys = new Map<string, number>();
  /** The fills under way; their reservations count toward the bound with the entries kept. */
  private readonly fills = new Set<Fill>();
  /** Reservations and trims, one at a time (each looks at the folder, then removes). */
  private readonly room = serial();
  /** Told whenever a fill gives its room back. */
  private readonly roomFreed = new Set<() => void>();

  constructor(private readonly o: MediaCacheOptions) {
    this.dir = o.dir;
    this.maxBytes = o.maxBytes ?? MEDIA_CACHE_MAX_BYTES;
    this.logger = o.logger ?? silentLogger;
  }

  private async ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
  }

  private paths(key: string): { bin: string; meta: string } {
    return { bin: path.join(this.dir, `${key}.bin`), meta: path.join(this.dir, `${key}.json`) };
  }

  /** The cached file of an agent's message (marked as just used), or null: not there, or not whole (then removed). */
  async get(agentId: string, messageId: string): Promise<CachedMedia | null> {
    const key = keyOf(agentId, messageId);
    const p = this.paths(key);
    let metaText: string;
    try {
      metaText = await readFile(p.meta, 'utf8');
    } catch {
      return null;
    }
    try {
      const meta = metaSchema.parse(JSON.parse(metaText));
      const data = await readFile(p.bin);
      if (data.length !== meta.bytes || hash(data) !== meta.sha256) throw new Error('the bytes do not match');
      const t = new Date(this.o.now());
      await utimes(p.bin, t, t);
      return { path: p.bin, filename: meta.filename, mimeType: meta.mimeType, bytes: meta.bytes };
    } catch {
      // Said without the error's words: a JSON parse error quotes the description (a file name).
      this.logger.warn('messages: a cached media file was not whole; it is fetched again');
      await this.removeKey(key);
      return null;
    }
  }

  /**
   * Fills an entry: `fill` reserves room for its file (reserve, before writing its first byte), then
   * writes that one file into the private temp folder it is given; the file is moved into the cache
   * (0600) with its description. The bound holds at every moment: the entries kept and the room the
   * fills under way reserved together never exceed it. `signal` ends a wait for room.
   */
  async put(
    agentId: string,
    messageId: string,
    at: number,
    fill: (tempDir: string, reserve: ReserveRoom) => Promise<FilledMedia>,
    signal?: AbortSignal,
  ): Promise<CachedMedia> {
    await this.ensureDir();
    const key = keyOf(agentId, messageId);
    // Known as a fill's before it exists: a look at the folder meanwhile never takes it for a crash's.
    const temp = path.join(this.dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    const mine: Fill = { reserved: 0 };
    this.filling.add(temp);
    this.fillingKeys.set(key, (this.fillingKeys.get(key) ?? 0) + 1);
    this.fills.add(mine);
    try {
      await mkdir(temp, { mode: 0o700 });
      const filled = await fill(temp, (bytes) => this.reserve(mine, bytes, signal));
      const data = await readFile(filled.path);
      const meta = { at, filename: filled.filename, mimeType: filled.mimeType, bytes: data.length, sha256: hash(data) };
      const metaText = JSON.stringify(meta);
      if (data.length + Buffer.byteLength(metaText) > mine.reserved)
        throw new MediaCacheError(
          'NOT_RESERVED',
          `The file (${data.length} bytes) was written without reserving its room in the media cache.`,
        );
      const p = this.paths(key);
      // Moved in while no one looks at the folder: never seen as half an entry.
      await this.room(async () => {
        await chmod(filled.path, 0o600);
        await rename(filled.path, p.bin);
        const metaTemp = path.join(temp, 'meta.json');
        await writeFile(metaTemp, metaText, { mode: 0o600 });
        await rename(metaTemp, p.meta);
        const t = new Date(this.o.now());
        await utimes(p.bin, t, t);
      });
      return { path: p.bin, filename: meta.filename, mimeType: meta.mimeType, bytes: meta.bytes };
    } finally {
      // The temp files go before the room they held is given back; the entry (no larger than its
      // room) counts as kept from the moment the room is given back.
      await rm(temp, { recursive: true, force: true }).catch(() => undefined);
      await this.room(() => {
        this.filling.delete(temp);
        const n = (this.fillingKeys.get(key) ?? 1) - 1;
        if (n > 0) this.fillingKeys.set(key, n);
        else this.fillingKeys.delete(key);
        this.fills.delete(mine);
      });
      for (const tell of [...this.roomFreed]) tell();
      // Halves of entries and crash leftovers go.
      await this.room(() => this.makeRoom(0));
    }
  }

  /** Sets aside `bytes` (and its description) for a fill; throws when it can never fit. */
  private async reserve(fill: Fill, bytes: number, signal?: AbortSignal): Promise<void> {
    if (fill.reserved > 0) throw new Error('a fill reserves its room once');
    const need = bytes + META_ALLOWANCE;
    if (need > this.maxBytes)
      throw new MediaCacheError(
        'LARGER_THAN_CACHE',
        `The file (${mib(bytes)}) is larger than the media cache's bound (${mib(this.maxBytes)}).`,
      );
    for (;;) {
      signal?.throwIfAborted();
      const wait = await this.room(async () => {
        if (await this.makeRoom(need)) {
          fill.reserved = need;
          return null;
        }
        // Every entry that could leave has left: wait (outside the turn) for a fill to give its
        // room back, listening from now on so that no release is missed.
        return { freed: this.nextFreed(signal) };
      });
      if (wait === null) return;
      await wait.freed;
    }
  }

  /** Removes the entries of an agent's messages (all of the agent's when no ids are given). */
  async remove(agentId: string, messageIds?: readonly string[]): Promise<void> {
    if (messageIds) {
      for (const id of messageIds) await this.removeKey(keyOf(agentId, id));
      return;
    }
    const prefix = `${agentPart(agentId)}-`;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const n of names) if (n.startsWith(prefix)) await rm(path.join(this.dir, n), { force: true });
  }

  /** Removes the files of messages older than `cutoff` (ms epoch): retention. */
  async removeOlderThan(cutoff: number): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      const key = n.slice(0, -5);
      if (this.fillingKeys.has(key)) continue;
      try {
        const meta = metaSchema.parse(JSON.parse(await readFile(path.join(this.dir, n), 'utf8')));
        if (meta.at < cutoff) await this.removeKey(key);
      } catch {
        await this.removeKey(key);
      }
    }
  }

  /** Resolves once a fill gives its room back; rejects when `signal` is aborted first. */
  private nextFreed(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const done = () => {
        this.roomFreed.delete(done);
        signal?.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        this.roomFreed.delete(done);
        reject(signal!.reason as Error);
      };
      this.roomFreed.add(done);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  /**
   * Makes room for `need` more bytes: the entries kept and the reservations of the fills under way
   * leave `need` free within the bound once the least recently used entries (never those being
   * filled) have left; false when they do not even then. Halves of an entry (bytes without a
   * description or the reverse) and temp folders left by a crash are removed on the way.
   */
  private async makeRoom(need: number): Promise<boolean> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const bins = new Set(names.filter((n) => n.endsWith('.bin')).map((n) => n.slice(0, -4)));
    const metas = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)));
    const entries: Array<{ key: string; size: number; usedAt: number }> = [];
    for (const n of names) {
      const full = path.join(this.dir, n);
      if (n.startsWith(TEMP_PREFIX)) {
        if (!this.filling.has(full)) await rm(full, { recursive: true, force: true }).catch(() => undefined);
        continue;
      }
      if (!n.endsWith('.bin')) continue;
      const key = n.slice(0, -4);
      // An entry being filled is counted by its fill's reservation.
      if (this.fillingKeys.has(key)) continue;
      if (!metas.has(key)) {
        await this.removeKey(key);
        continue;
      }
      try {
        const s = await stat(full);
        const m = await stat(path.join(this.dir, `${key}.json`));
        entries.push({ key, size: s.size + m.size, usedAt: s.mtimeMs });
      } catch {
        /* removed meanwhile */
      }
    }
    for (const key of metas) if (!bins.has(key) && !this.fillingKeys.has(key)) await this.removeKey(key);
    let total = need + entries.reduce((n, e) => n + e.size, 0);
    for (const f of this.fills) total += f.reserved;
    entries.sort((a, b) => a.usedAt - b.usedAt);
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      await this.removeKey(e.key);
      total -= e.size;
    }
    return total <= this.maxBytes;
  }

  private async removeKey(key: string): Promise<void> {
    const p = this.paths(key);
    await rm(p.bin, { force: true }).catch(() => undefined);
    await rm(p.meta, { force: true }).catch(() => undefined);
  }
}
