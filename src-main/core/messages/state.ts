// What the Messages side keeps of its own, besides the logs: read marks, local names for contacts,
// deletions of inbound messages (tombstones: the tunnel's log is append-only and is not rewritten,
// so a deleted conversation is hidden by its tombstone until retention or the log's own bounds drop
// the deliveries) and the retention setting. One small JSON file, <data dir>/messages/state.json,
// 0600, written atomically. A file that cannot be read is set aside (state.json.corrupt) and a fresh
// state is used: it holds no message, only marks, names and deletions.
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { fileStamp } from '../file-stamp';
import { silentLogger, type Logger } from '../ports';
import { serial } from '../serial';
import { ensurePrivateDir } from '../tunnel/private-files';

const DEFAULT_RETENTION_DAYS = 90;
export const DAY_MS = 24 * 3600_000;

export interface Tombstone {
  agentId: string;
  /** One conversation, or every conversation of the agent when absent. */
  contact?: string;
  /** Messages at or before this time (ms epoch) are deleted. */
  upTo: number;
}

export interface MessageStateData {
  version: 1;
  retentionDays: number;
  /** agentId → contact → read up to (ms epoch). */
  read: Record<string, Record<string, number>>;
  /** contact → local name. */
  names: Record<string, string>;
  tombstones: Tombstone[];
}

const schema = z.object({
  version: z.literal(1),
  retentionDays: z.number().int().min(1).max(3650),
  read: z.record(z.string(), z.record(z.string(), z.number())),
  names: z.record(z.string(), z.string().max(200)),
  tombstones: z.array(
    z.object({ agentId: z.string().min(1), contact: z.string().min(1).optional(), upTo: z.number() }),
  ),
});

export function emptyState(): MessageStateData {
  return { version: 1, retentionDays: DEFAULT_RETENTION_DAYS, read: {}, names: {}, tombstones: [] };
}

export class MessageStateFile {
  readonly file: string;
  private readonly inTurn = serial();
  /** The file's stamp when this process last read or wrote it. */
  private seen = '';

  constructor(
    dataDir: string,
    private readonly logger: Logger = silentLogger,
  ) {
    this.file = join(dataDir, 'messages', 'state.json');
  }

  async load(): Promise<MessageStateData> {
    this.seen = await fileStamp(this.file);
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
      throw err;
    }
    try {
      return schema.parse(JSON.parse(text)) as MessageStateData;
    } catch {
      this.logger.warn('messages: the state file is unreadable; set aside, starting afresh', { file: this.file });
      await rename(this.file, `${this.file}.corrupt`).catch(() => undefined);
      return emptyState();
    }
  }

  /**
   * Makes a change on the state as the file holds it now (another app on this data folder, the
   * desktop app beside `serve`, may have changed it since this one read it) and writes it; changes
   * of this process one at a time. Resolves with the state written.
   */
  change(fn: (s: MessageStateData) => MessageStateData): Promise<MessageStateData> {
    return this.inTurn(async () => {
      const next = fn(await this.load());
      await ensurePrivateDir(join(this.file, '..'));
      await writeFileAtomic(this.file, `${JSON.stringify(next)}\n`, { mode: 0o600 });
      this.seen = await fileStamp(this.file);
      return next;
    });
  }

  /** The state when the file changed since this process last read or wrote it, else null. */
  readIfChanged(): Promise<MessageStateData | null> {
    // In turn with this process's changes: its own write is never taken for another's.
    return this.inTurn(async () => ((await fileStamp(this.file)) === this.seen ? null : this.load()));
  }
}
