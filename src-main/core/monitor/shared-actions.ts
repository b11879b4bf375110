// What a person does about the alerts in one app reaches the other apps on the same data folder (the
// desktop app and `serve`): each app's monitor raises its own incidents and keeps its own snooze, so an
// acknowledgement or a snooze made in one of them must reach the others, or the app that posts the
// alerts goes on paging the team about an incident acknowledged, or during a snooze set, elsewhere. Kept as one JSON-lines file beside the open incidents,
// owner-only (0600), appended in one write per action taken (so two apps appending do not
// interleave) and read from where this app last read, every 2 s. It grows by one short line
// per acknowledged incident or snooze, which people make by hand.
import { appendFile, mkdir, open, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { serial } from '../serial';

export const SHARED_ACTIONS_FILE = 'on-call-actions.jsonl';

const acknowledgeSchema = z.object({
  type: z.literal('acknowledge'),
  /** The app that acted (its own lines are skipped when read back). */
  app: z.string().min(1),
  at: z.number(),
  teamId: z.string().min(1),
  agentId: z.string().min(1).nullable(),
  kind: z.enum(['needs-scan', 'reconnecting', 'unreachable', 'key-rejected', 'flapping']),
  /** When the acknowledged incident opened in the app that acted. */
  openedAt: z.number(),
});

const snoozeSchema = z.object({
  type: z.literal('snooze'),
  app: z.string().min(1),
  at: z.number(),
  /** ms epoch; null ends the snooze. */
  until: z.number().nullable(),
});

const actionSchema = z.discriminatedUnion('type', [acknowledgeSchema, snoozeSchema]);

export type SharedAction = z.infer<typeof actionSchema>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** How far apart two apps may open their incidents about one outage (each on its own poll). */
export const SAME_OUTAGE_MS = 60_000;

export class SharedActions {
  private offset: number;
  /** A line cut short by a read that ended before its newline. */
  private partial = '';
  private readonly inTurn = serial();
  private reading: Promise<SharedAction[]> | null = null;

  /** The latest snooze set before this app started (it may still hold), or null. */
  readonly snoozeAtStart: Extract<SharedAction, { type: 'snooze' }> | null = null;

  constructor(
    private readonly file: string,
    private readonly app: string,
    private readonly onError: (err: unknown) => void,
  ) {
    // Acknowledgements made before this app started are in the open incidents it took up; of the
    // snoozes, the latest counts.
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError(err);
    }
    const end = text.lastIndexOf('\n') + 1;
    this.offset = Buffer.byteLength(text.slice(0, end));
    for (const a of parseLines(text.slice(0, end).split('\n'))) if (a.type === 'snooze') this.snoozeAtStart = a;
  }

  /** Appends actions of this app (in order, one write each). */
  write(actions: Array<DistributiveOmit<SharedAction, 'app'>>): void {
    if (actions.length === 0) return;
    const text = actions.map((a) => `${JSON.stringify({ ...a, app: this.app })}\n`).join('');
    void this.inTurn(async () => {
      try {
        await mkdir(dirname(this.file), { recursive: true });
        await appendFile(this.file, text, { mode: 0o600 });
      } catch (err) {
        this.onError(err);
      }
    });
  }

  /** The other apps' actions appended since the last read (a torn or foreign line is skipped). */
  readNew(): Promise<SharedAction[]> {
    this.reading ??= this.read().finally(() => (this.reading = null));
    return this.reading;
  }

  flush(): Promise<void> {
    return this.inTurn.idle();
  }

  private async read(): Promise<SharedAction[]> {
    let text: string;
    try {
      // One stat every read; the file is opened only when it grew.
      const { size } = await stat(this.file);
      if (size === this.offset) return [];
      if (size < this.offset) this.offset = 0; // replaced by a shorter file: read it all
      const fh = await open(this.file, 'r');
      try {
        const buf = Buffer.alloc(size - this.offset);
        const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
        this.offset += bytesRead;
        text = this.partial + buf.toString('utf8', 0, bytesRead);
      } finally {
        await fh.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(err);
      return [];
    }
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    return parseLines(lines).filter((a) => a.app !== this.app);
  }
}

/** The actions among these lines; a torn or foreign line is skipped. */
function parseLines(lines: string[]): SharedAction[] {
  const out: SharedAction[] = [];
  for (const line of lines) {
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const a = actionSchema.safeParse(parsed);
    if (a.success) out.push(a.data);
  }
  return out;
}
