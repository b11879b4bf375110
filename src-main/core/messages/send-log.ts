// The durable send log: every send from this install (the app's console, the Messages composer, the
// CLI's `send`) as one JSON line in <data dir>/messages/sent.jsonl (folder 0700, file 0600). A line
// is appended with one write(2) of the whole line (O_APPEND), so writers in two processes never
// interleave inside a line. A torn last line (a crash mid-write) and any line that does not fit the
// schema are skipped on read, never fatal. Deleting and retention rewrite the file (a temporary file
// renamed over it), so deleted text really leaves it.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { appendJsonLines, readJsonLinesFrom, rewriteJsonLines } from '../jsonl';
import { ensurePrivateDir } from '../tunnel/private-files';
import { serial } from '../serial';

const SEND_LOG_FILE = 'sent.jsonl';

export type SendKind = 'text' | 'image' | 'document';
/** Which part of this install made the send. */
export type SendVia = 'console' | 'messages' | 'cli';

/** What a failed send met: the error's kind and code, and the message the client made of it. */
export interface SendError {
  kind: string;
  code: string;
  message: string;
  /** X-RateLimit-Limit of the answer, when the service gave it. */
  limit?: number;
}

export interface SendRecord {
  /** Ours (not the service's messageId). */
  id: string;
  /** ms since epoch, when the send settled. */
  at: number;
  /** The saved team, or null (the CLI with an environment key and --base-url). */
  teamId: string | null;
  agentId: string;
  /** The recipient as given to the service (+digits or a JID). */
  to: string;
  kind: SendKind;
  /** The text, or the caption of the media. */
  text?: string;
  mediaUrl?: string;
  filename?: string;
  via: SendVia;
  /** The window's own reference of the send (the contract's clientRef), when a window made it. */
  clientRef?: string;
  /** The team hub's member who sent it (a send made through a hub); absent elsewhere. */
  sentBy?: string;
  /** The service's answer: its messageId and status, or the error. */
  messageId?: string;
  status?: string;
  error?: SendError;
}

const recordSchema = z.object({
  id: z.string().min(1),
  at: z.number(),
  teamId: z.string().nullable(),
  agentId: z.string().min(1),
  to: z.string().min(1),
  kind: z.enum(['text', 'image', 'document']),
  text: z.string().optional(),
  mediaUrl: z.string().optional(),
  filename: z.string().optional(),
  via: z.enum(['console', 'messages', 'cli']),
  clientRef: z.string().max(200).optional(),
  sentBy: z.string().max(64).optional(),
  messageId: z.string().optional(),
  status: z.string().optional(),
  error: z.object({ kind: z.string(), code: z.string(), message: z.string(), limit: z.number().optional() }).optional(),
});

/** A line's record, or undefined when it does not fit (skipped, never trusted). */
const sendRecord = (v: unknown): SendRecord | undefined => recordSchema.safeParse(v).data as SendRecord | undefined;

export class SendLog {
  readonly dir: string;
  readonly file: string;
  /** Rewrites (deletion, retention) and appends of this process, one at a time. */
  private readonly inTurn = serial();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'messages');
    this.file = join(this.dir, SEND_LOG_FILE);
  }

  /** Appends one record (its id is made here); resolves with the record as stored. */
  append(rec: Omit<SendRecord, 'id'>): Promise<SendRecord> {
    const full: SendRecord = { id: randomUUID(), ...rec };
    return this.inTurn(async () => {
      await ensurePrivateDir(this.dir);
      // 0600 also when the file was made earlier with a looser mode (core/jsonl.ts).
      await appendJsonLines(this.file, [full]);
      return full;
    });
  }

  /** Every record, oldest first; a missing file is an empty log. */
  async read(): Promise<SendRecord[]> {
    return (await this.readFrom(0)).records;
  }

  /**
   * The records from byte `offset` on, and the offset after the last whole line (a follower passes
   * it back). A file shorter than `offset` was rewritten: read from its start (`reset`).
   */
  readFrom(offset: number): Promise<{ records: SendRecord[]; next: number; reset: boolean }> {
    return readJsonLinesFrom(this.file, offset, sendRecord);
  }

  /** Size of the file in bytes (0 when missing): a follower's cheap "anything new?". */
  async size(): Promise<number> {
    try {
      return (await stat(this.file)).size;
    } catch {
      return 0;
    }
  }

  /** Keeps only the records `keep` answers true for; returns how many went. */
  removeWhere(drop: (r: SendRecord) => boolean): Promise<number> {
    return this.inTurn(async () => {
      const all = await this.read();
      const kept = all.filter((r) => !drop(r));
      const gone = all.length - kept.length;
      if (gone === 0) return 0;
      await ensurePrivateDir(this.dir);
      await rewriteJsonLines(this.file, kept);
      return gone;
    });
  }
}
