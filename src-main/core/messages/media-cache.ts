// The media of messages, kept in the data folder (`<data>/messages/media/`, folder 0700, files 0600)
// under a size bound: the least recently used files leave first. Each entry is the file's bytes
// (`<key>.bin`) and a small description (`<key>.json`: name, type, size, sha256). An entry whose
// bytes do not match its description (a torn write, a file changed on disk) is removed and fetched
// again; a file still being written lives in a temp folder and is renamed in whole.
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { silentLogger, type Logger } from '../ports';

/** Default bound of the media cache: 200 MiB. */
const MEDIA_CACHE_MAX_BYTES = 200 * 1024 * 1024;

export interface CachedMedia {
  /** The file's bytes, in the cache folder. */
  path: string;
  filename: string;
  mimeType: string;
  bytes: number;
}

/** What a fill wrote: a file in the temp folder it was given. */
interface FilledMedia {
  path: string;
  filename: string;
  mimeType: string;
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

export class MediaCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly logger: Logger;
  /** Temp folders and keys of fills under way: trimming leaves them alone (a fill's entry is half there while it is renamed in). */
  private readonly filling = new Set<string>();
  private readonly fillingKeys = new Set<string>();

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
   * Fills an entry: `fill` writes one file into the private temp folder it is given; the file is
   * moved into the cache (0600) with its description, and the cache is trimmed to its bound (the
   * new entry last).
   */
  async put(
    agentId: string,
    messageId: string,
    at: number,
    fill: (tempDir: string) => Promise<FilledMedia>,
  ): Promise<CachedMedia> {
    await this.ensureDir();
    const key = keyOf(agentId, messageId);
    const temp = await mkdtemp(path.join(this.dir, TEMP_PREFIX));
    this.filling.add(temp);
    this.fillingKeys.add(key);
    try {
      const filled = await fill(temp);
      const data = await readFile(filled.path);
      const p = this.paths(key);
      await chmod(filled.path, 0o600);
      await rename(filled.path, p.bin);
      const meta = { at, filename: filled.filename, mimeType: filled.mimeType, bytes: data.length, sha256: hash(data) };
      const metaTemp = path.join(temp, 'meta.json');
      await writeFile(metaTemp, JSON.stringify(meta), { mode: 0o600 });
      await rename(metaTemp, p.meta);
      const t = new Date(this.o.now());
      await utimes(p.bin, t, t);
      await this.trim();
      return { path: p.bin, filename: meta.filename, mimeType: meta.mimeType, bytes: meta.bytes };
    } finally {
      this.filling.delete(temp);
      this.fillingKeys.delete(key);
      await rm(temp, { recursive: true, force: true }).catch(() => undefined);
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

  /**
   * Keeps the cache within its bound: the least recently used entries leave first (those being
   * filled never); halves of an entry (bytes without a description or the reverse) and temp folders
   * left by a crash are removed.
   */
  private async trim(): Promise<void> {
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
    let total = entries.reduce((n, e) => n + e.size, 0);
    // Entries being filled count toward the bound but are not removed.
    for (const key of this.fillingKeys) {
      try {
        const p = this.paths(key);
        total += (await stat(p.bin)).size + (await stat(p.meta)).size;
      } catch {
        /* not there yet */
      }
    }
    entries.sort((a, b) => a.usedAt - b.usedAt);
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      await this.removeKey(e.key);
      total -= e.size;
    }
  }

  private async removeKey(key: string): Promise<void> {
    const p = this.paths(key);
    await rm(p.bin, { force: true }).catch(() => undefined);
    await rm(p.meta, { force: true }).catch(() => undefined);
  }
}
