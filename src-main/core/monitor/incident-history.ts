// Resolved incidents, with the words of their last alert, kept in one JSON-lines file in the data
// folder so the history survives a restart: the last `max` (1,000) of them, the file owner-only
// (0600). Read once at start (torn or foreign lines are skipped), appended line by line, rewritten
// atomically once it holds more than max + slack lines; writes in order, a failed write is reported
// to onError and the history kept in memory.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { appendJsonLines, readJsonLinesSync, rewriteJsonLines } from '../jsonl';
import { serial } from '../serial';

export const INCIDENT_HISTORY_FILE = 'incident-history.jsonl';

const recordSchema = z.object({
  id: z.string().min(1),
  teamId: z.string().min(1),
  agentId: z.string(),
  teamWide: z.literal(true).optional(),
  kind: z.string().min(1),
  severity: z.enum(['urgent', 'warning', 'info']),
  title: z.string(),
  message: z.string(),
  openedAt: z.number(),
  acknowledgedAt: z.number().nullable(),
  acknowledgedBy: z.string().optional(),
  resolvedAt: z.number(),
  /** Its end and length as the monitor measured them (absent in records kept before they were). */
  endedAt: z.number().optional(),
  durationMs: z.number().optional(),
  removed: z.literal(true).optional(),
});

/** A resolved incident as kept: its last words, when it opened, ended and was resolved, and its length. */
export type ResolvedIncident = z.infer<typeof recordSchema>;

export interface IncidentHistoryFilter {
  teamId?: string;
  agentId?: string;
  kind?: string;
  /** At most this many, newest first. */
  limit?: number;
}

export interface IncidentHistoryOptions {
  /** The JSON-lines file; null keeps the history in memory only. */
  file: string | null;
  max?: number;
  compactSlack?: number;
  onError?: (err: unknown) => void;
  /**
   * Whether this process keeps the file now (default: always). While it does not (another app on the
   * data folder keeps it), records are kept in memory only.
   */
  writable?: () => boolean;
}

export class IncidentHistory {
  private readonly max: number;
  private readonly slack: number;
  /** Oldest first. */
  private readonly records: ResolvedIncident[] = [];
  private lines = 0;
  private readonly inTurn = serial();

  constructor(private readonly opts: IncidentHistoryOptions) {
    this.max = Math.max(1, opts.max ?? 1000);
    this.slack = Math.max(0, opts.compactSlack ?? 100);
    if (opts.file !== null) this.read(opts.file);
  }

  /** Keeps one resolved incident (one with the same id replaces it); one missing a field is refused (onError), nothing else changes. */
  add(record: ResolvedIncident): boolean {
    const parsed = recordSchema.safeParse(record);
    if (!parsed.success) {
      this.opts.onError?.(
        new Error(
          `not a resolved incident: ${parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}`,
        ),
      );
      return false;
    }
    const clean = parsed.data;
    const at = this.records.findIndex((r) => r.id === clean.id);
    if (at >= 0) this.records.splice(at, 1);
    this.records.push(clean);
    if (this.records.length > this.max) this.records.splice(0, this.records.length - this.max);
    const file = this.opts.file;
    if (file === null || (this.opts.writable && !this.opts.writable())) return true;
    const rewrite = at >= 0 || this.lines + 1 > this.max + this.slack;
    const lines = rewrite ? [...this.records] : [clean];
    this.lines = rewrite ? this.records.length : this.lines + 1;
    void this.inTurn(async () => {
      try {
        await mkdir(dirname(file), { recursive: true });
        if (rewrite) await rewriteJsonLines(file, lines);
        else await appendJsonLines(file, lines);
      } catch (err) {
        this.opts.onError?.(err);
      }
    });
    return true;
  }

  /** The resolved incidents matching the filter, newest (latest resolved) first. */
  list(filter: IncidentHistoryFilter = {}): ResolvedIncident[] {
    const out = this.records
      .filter(
        (r) =>
          (filter.teamId === undefined || r.teamId === filter.teamId) &&
          (filter.agentId === undefined || r.agentId === filter.agentId) &&
          (filter.kind === undefined || r.kind === filter.kind),
      )
      .sort((a, b) => b.resolvedAt - a.resolvedAt || b.openedAt - a.openedAt);
    return (filter.limit === undefined ? out : out.slice(0, filter.limit)).map((r) => ({ ...r }));
  }

  /** Waits for pending writes. */
  flush(): Promise<void> {
    return this.inTurn.idle();
  }

  /** Reads the file again: what it holds replaces what is in memory (another app kept it meanwhile). */
  async reload(): Promise<void> {
    await this.inTurn.idle();
    if (this.opts.file === null) return;
    this.records.length = 0;
    this.lines = 0;
    this.read(this.opts.file);
  }

  private read(file: string): void {
    let read;
    try {
      read = readJsonLinesSync(file, (v) => recordSchema.safeParse(v).data);
    } catch (err) {
      this.opts.onError?.(err);
      return;
    }
    this.lines = read.lines;
    const byId = new Map<string, ResolvedIncident>();
    for (const r of read.records) {
      byId.delete(r.id);
      byId.set(r.id, r);
    }
    this.records.push(...[...byId.values()].slice(-this.max));
  }
}
