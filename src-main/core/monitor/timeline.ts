// Per-agent incident timeline: every health (or state) change with its time and the raw session
// status or error DTO. One JSONL file per agent under the injected directory, bounded to the last
// `maxEntries` (500) — appended line by line, rewritten atomically (compacted) once the file holds
// more than maxEntries + compactSlack lines. Nothing secret is stored: no key ever reaches here,
// error text is redacted, and the pairing QR (which would let anyone link the number) is reduced
// to "present".
import { mkdir, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { ServiceErrorDTO } from '../api/errors';
import type { SessionStatus } from '../api/types';
import { HEALTHS, redactSecrets, type Health } from './health';
import { serialByKey } from '../serial';
import { appendJsonLines, readJsonLines, rewriteJsonLines } from '../jsonl';

/** A session status as stored: the QR itself is never kept. */
export type StoredStatus = Omit<SessionStatus, 'qr'> & { qr: boolean };

export interface TimelineEntry {
  at: number;
  teamId: string;
  agentId: string;
  from: Health;
  to: Health;
  /** The service's `state` verbatim at that moment, null when the poll failed before any answer. */
  state: string | null;
  status?: StoredStatus;
  error?: ServiceErrorDTO;
  incidentId?: string;
}

const healthSchema = z.enum(HEALTHS);

const entrySchema = z.object({
  at: z.number(),
  teamId: z.string(),
  agentId: z.string(),
  from: healthSchema,
  to: healthSchema,
  state: z.string().nullable(),
  status: z
    .object({
      connected: z.boolean(),
      linked: z.boolean(),
      state: z.string(),
      needsScan: z.boolean(),
      phone: z.string().nullable(),
      qr: z.boolean(),
      live: z.boolean().optional(),
    })
    .optional(),
  error: z
    .object({
      kind: z.string(),
      status: z.number().optional(),
      code: z.string(),
      message: z.string(),
      rateLimit: z.record(z.string(), z.number()),
      retryAfterSec: z.number().optional(),
    })
    .optional(),
  incidentId: z.string().optional(),
});

export function storedStatus(s: SessionStatus): StoredStatus {
  const out: StoredStatus = {
    connected: s.connected,
    linked: s.linked,
    state: s.state,
    needsScan: s.needsScan,
    phone: s.phone,
    qr: s.qr !== null,
  };
  if (s.live !== undefined) out.live = s.live;
  return out;
}

function safeErrorDTO(e: ServiceErrorDTO): ServiceErrorDTO {
  return { ...e, message: redactSecrets(e.message), rateLimit: { ...e.rateLimit } };
}

export interface TimelineOptions {
  /** Directory of the JSONL files; null keeps the timeline in memory only. */
  dataDir: string | null;
  maxEntries?: number;
  compactSlack?: number;
  onError?: (err: unknown) => void;
  /**
   * Whether this process keeps the files now (default: always). While it does not (another app on the
   * data folder keeps them), entries are kept in memory only.
   */
  writable?: () => boolean;
}

interface AgentLog {
  entries: TimelineEntry[];
  /** Lines in the file now. */
  lines: number;
}

export class Timeline {
  private readonly max: number;
  private readonly slack: number;
  private readonly logs = new Map<string, Promise<AgentLog>>();
  /** Each agent's file written one write at a time. */
  private readonly writes = serialByKey<string>();
  private dirReady: Promise<void> | null = null;
  /** The files in the directory when first looked at (null: unknown), so agents without one are not read. */
  private files: Promise<Set<string> | null> | null = null;

  constructor(private readonly opts: TimelineOptions) {
    this.max = Math.max(1, opts.maxEntries ?? 500);
    this.slack = Math.max(0, opts.compactSlack ?? 50);
  }

  fileFor(agentId: string): string | null {
    return this.opts.dataDir === null ? null : join(this.opts.dataDir, `${encodeURIComponent(agentId)}.jsonl`);
  }

  /** Appends one entry (errors are reported to onError, never thrown: monitoring goes on). */
  async record(entry: TimelineEntry): Promise<void> {
    const clean: TimelineEntry = { ...entry };
    if (clean.error) clean.error = safeErrorDTO(clean.error);
    const log = await this.load(entry.agentId);
    log.entries.push(clean);
    if (log.entries.length > this.max) log.entries.splice(0, log.entries.length - this.max);
    const file = this.fileFor(entry.agentId);
    if (file === null || (this.opts.writable && !this.opts.writable())) return;
    await this.writes(entry.agentId, async () => {
      try {
        await this.ensureDir();
        if (log.lines + 1 > this.max + this.slack) {
          await rewriteJsonLines(file, log.entries);
          log.lines = log.entries.length;
        } else {
          await appendJsonLines(file, [clean]);
          log.lines++;
        }
      } catch (err) {
        this.opts.onError?.(err);
      }
    });
  }

  /** The agent's entries, oldest first (at most maxEntries). */
  async list(agentId: string): Promise<TimelineEntry[]> {
    const log = await this.load(agentId);
    return log.entries.map((e) => ({ ...e }));
  }

  /** Waits for every pending write. */
  async flush(): Promise<void> {
    await Promise.all([...this.logs.values()]);
    await this.writes.idle();
  }

  /** Forgets what it read: every agent's entries are read again from its file when next asked for. */
  async reload(): Promise<void> {
    await this.flush();
    this.logs.clear();
    this.files = null;
  }

  private ensureDir(): Promise<void> {
    const dir = this.opts.dataDir;
    if (dir === null) return Promise.resolve();
    this.dirReady ??= mkdir(dir, { recursive: true }).then(() => undefined);
    return this.dirReady;
  }

  private load(agentId: string): Promise<AgentLog> {
    let p = this.logs.get(agentId);
    if (!p) {
      p = this.readFromDisk(agentId);
      this.logs.set(agentId, p);
    }
    return p;
  }

  /** One directory listing for every agent's first load (a missing directory holds no files). */
  private listFiles(): Promise<Set<string> | null> {
    const dir = this.opts.dataDir;
    if (dir === null) return Promise.resolve(null);
    this.files ??= readdir(dir).then(
      (names) => new Set(names),
      (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? new Set<string>() : null),
    );
    return this.files;
  }

  private async readFromDisk(agentId: string): Promise<AgentLog> {
    const file = this.fileFor(agentId);
    const log: AgentLog = { entries: [], lines: 0 };
    if (file === null) return log;
    const files = await this.listFiles();
    if (files !== null && !files.has(basename(file))) return log;
    try {
      const read = await readJsonLines(file, (v) => entrySchema.safeParse(v).data as TimelineEntry | undefined);
      log.lines = read.lines;
      log.entries.push(...read.records);
    } catch {
      return log;
    }
    if (log.entries.length > this.max) log.entries.splice(0, log.entries.length - this.max);
    return log;
  }
}
