// What a person does about the alerts in one app reaches the other apps on the same data folder (the
// desktop app and `serve`): each app's monitor raises its own incidents and keeps its own snooze, so an
// acknowledgement or a snooze made in one of them must reach the others, or the app that posts the
// alerts goes on paging the team about an incident acknowledged, or during a snooze set, elsewhere. Kept as one JSON-lines file beside the open incidents,
// owner-only (0600), appended in one write per action taken (so two apps appending do not
// interleave) and read from where this app last read, every 2 s. It grows by one short line
// per acknowledged incident or snooze, which people make by hand.
import { mkdir, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { serial } from '../serial';
import { appendJsonLines, parseJsonLines, readJsonLinesFrom } from '../jsonl';

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
  /** Where the whole lines read so far end (a line still being written is read once it is whole). */
  private offset: number;
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
    for (const a of parseJsonLines(text, action).records) if (a.type === 'snooze') this.snoozeAtStart = a;
  }

  /** Appends actions of this app (in order, one write each). */
  write(actions: Array<DistributiveOmit<SharedAction, 'app'>>): void {
    if (actions.length === 0) return;
    const lines = actions.map((a) => ({ ...a, app: this.app }));
    void this.inTurn(async () => {
      try {
        await mkdir(dirname(this.file), { recursive: true });
        await appendJsonLines(this.file, lines);
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
    try {
      // One stat every read; the file is opened only when it grew.
      const { size } = await stat(this.file);
      if (size === this.offset) return [];
      const { records, next } = await readJsonLinesFrom(this.file, this.offset, action);
      this.offset = next;
      return records.filter((a) => a.app !== this.app);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(err);
      return [];
    }
  }
}

/** A line's action, or undefined (a foreign line is skipped). */
const action = (v: unknown): SharedAction | undefined => actionSchema.safeParse(v).data;
