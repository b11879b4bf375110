// Refused requests (and requests to paths that are not hooks), metadata only, in their own bounded
// store under <dataDir>/refused: at most maxEntries in memory, and on disk two files of at most
// maxEntries / 2 lines each (the current one rolls over the older one), so junk can never evict a
// delivery nor fill the disk. Best effort: written without fdatasync, a write failure is logged and
// the entry stays in memory. A reader (readOnly) only loads the files. Credential headers
// (Authorization, Cookie, …) are kept redacted.
import { closeSync, fstatSync, ftruncateSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { silentLogger, type Logger } from '../ports';
import { readJsonLines } from '../jsonl';
import { isCredentialHeader, REDACTED, redactHeaders } from './headers';
import { ensurePrivateDir, PRIVATE_FILE_MODE, privateFiles } from './private-files';
import { REFUSED_REASONS, type RefusedReason, type RefusedRequest } from './types';

const DEFAULT_MAX_REFUSED = 2_000;
const CURRENT = 'refused.jsonl';
const OLDER = 'refused.1.jsonl';

/** Caps that bound one entry (the prefix is cut by the receiver at 256 bytes). */
const MAX_HEADER_VALUE = 1024;
const MAX_HEADERS_CHARS = 8 * 1024;
const MAX_TEXT = 2048;

const entrySchema = z.object({
  id: z.string().min(1),
  at: z.number(),
  method: z.string(),
  path: z.string(),
  agentId: z.string().nullable(),
  from: z.string(),
  reason: z.enum(REFUSED_REASONS),
  detail: z.string(),
  status: z.number().int(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  prefix: z.string(),
  headers: z.record(z.string(), z.string()),
});

export interface RefusedQuery {
  /** Newest first; default 50, at most 1000. */
  limit?: number;
  /** Case-insensitive substring of the path, source, reason, detail, prefix or a header. */
  text?: string;
  agentId?: string;
  reason?: RefusedReason;
}

export interface RefusedStoreOptions {
  dataDir: string;
  readOnly?: boolean;
  maxEntries?: number;
  logger?: Logger;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Header values as strings, each and all capped; a credential header's value redacted (headers.ts). */
export function cappedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let total = 0;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const value = isCredentialHeader(k.toLowerCase())
      ? REDACTED
      : cut(Array.isArray(v) ? v.join(', ') : v, MAX_HEADER_VALUE);
    total += k.length + value.length;
    if (total > MAX_HEADERS_CHARS) {
      out['…'] = 'further headers left out';
      break;
    }
    out[k] = value;
  }
  return out;
}

export class RefusedStore {
  readonly dir: string;
  private readonly max: number;
  private readonly logger: Logger;
  private readonly readOnly: boolean;
  /** Oldest first. */
  private entries: RefusedRequest[] = [];
  private fd: number | null = null;
  private linesInCurrent = 0;
  private queue: string[] = [];
  private scheduled = false;
  private failing = false;
  private closed = false;

  constructor(o: RefusedStoreOptions) {
    this.dir = join(o.dataDir, 'refused');
    this.max = Math.max(2, o.maxEntries ?? DEFAULT_MAX_REFUSED);
    this.logger = o.logger ?? silentLogger;
    this.readOnly = o.readOnly === true;
  }

  async open(): Promise<void> {
    if (!this.readOnly) {
      await ensurePrivateDir(this.dir);
      await privateFiles(this.dir);
    }
    let tornCurrent = false;
    for (const name of [OLDER, CURRENT]) {
      // An entry kept before credential headers were redacted is read redacted all the same.
      const read = await readJsonLines(join(this.dir, name), (v) => {
        const e = entrySchema.safeParse(v).data;
        if (e) e.headers = redactHeaders(e.headers);
        return e;
      }).catch(() => null);
      if (!read) continue;
      if (name === CURRENT) {
        this.linesInCurrent = read.lines;
        tornCurrent = read.torn;
      }
      this.entries.push(...read.records);
    }
    if (this.entries.length > this.max) this.entries = this.entries.slice(-this.max);
    if (!this.readOnly) {
      this.fd = openSync(join(this.dir, CURRENT), 'a', PRIVATE_FILE_MODE);
      // A line torn by a writer that stopped is ended, so the next entry stands on a line of its own.
      if (tornCurrent) writeSync(this.fd, '\n');
    }
  }

  /** Keeps one entry (its texts and headers capped). */
  add(r: RefusedRequest): RefusedRequest {
    const e: RefusedRequest = {
      ...r,
      path: cut(r.path, MAX_TEXT),
      detail: cut(r.detail, MAX_TEXT),
      from: cut(r.from, 256),
      method: cut(r.method, 32),
    };
    this.entries.push(e);
    if (this.entries.length > this.max + this.max / 4) this.entries = this.entries.slice(-this.max);
    if (this.fd !== null && !this.closed) {
      this.queue.push(`${JSON.stringify(e)}\n`);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    }
    return e;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.fd === null || this.queue.length === 0) return;
    const lines = this.queue;
    this.queue = [];
    let size = -1;
    try {
      if (this.linesInCurrent + lines.length > this.max / 2) this.rollOver();
      const buf = Buffer.from(lines.join(''), 'utf8');
      size = fstatSync(this.fd!).size;
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd!, buf, off, buf.length - off);
      this.linesInCurrent += lines.length;
      this.failing = false;
    } catch (err) {
      // No torn line stays behind for the next entry to follow.
      if (size >= 0 && this.fd !== null) {
        try {
          ftruncateSync(this.fd, size);
        } catch {
          // the next write's own check will find it
        }
      }
      if (!this.failing)
        this.logger.warn('tunnel: could not keep refused requests on disk (they stay in memory)', {
          error: err instanceof Error ? err.message : String(err),
        });
      this.failing = true;
    }
  }

  private rollOver(): void {
    closeSync(this.fd!);
    this.fd = null;
    try {
      renameSync(join(this.dir, CURRENT), join(this.dir, OLDER));
      this.linesInCurrent = 0;
    } finally {
      this.fd = openSync(join(this.dir, CURRENT), 'a', PRIVATE_FILE_MODE);
    }
  }

  /** Newest first. */
  list(q: RefusedQuery = {}): RefusedRequest[] {
    const limit = Math.min(Math.max(1, q.limit ?? 50), 1000);
    const text = q.text?.toLowerCase();
    const out: RefusedRequest[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.entries[i]!;
      if (q.agentId !== undefined && e.agentId !== q.agentId) continue;
      if (q.reason !== undefined && e.reason !== q.reason) continue;
      if (
        text !== undefined &&
        ![e.path, e.from, e.reason, e.detail, e.prefix, ...Object.values(e.headers)].some((s) =>
          s.toLowerCase().includes(text),
        )
      )
        continue;
      out.push(e);
    }
    return out;
  }

  get size(): number {
    return Math.min(this.entries.length, this.max);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
