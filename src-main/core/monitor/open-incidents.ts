// The incidents open now, kept in one small JSON file beside the timeline so a monitor started again
// takes them up where it stopped: an incident closes only when a poll shows the agent recovered, or
// as removed when its agent is no longer watched. Read once at start (an unreadable file counts as
// none open), rewritten atomically after every change, writes in order.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { Incident } from './types';
import { serial } from '../serial';

export const OPEN_INCIDENTS_FILE = 'open-incidents.json';

const incidentSchema = z.object({
  id: z.string().min(1),
  teamId: z.string().min(1),
  agentId: z.string().min(1).nullable(),
  agentIds: z.array(z.string().min(1)),
  kind: z.enum(['needs-scan', 'reconnecting', 'unreachable', 'key-rejected', 'flapping']),
  openedAt: z.number(),
  delivered: z.boolean(),
  raised: z.boolean(),
  urgent: z.boolean().optional(),
  acknowledgedAt: z.number().nullable(),
  acknowledgedBy: z.string().optional(),
  resolvedAt: z.null(),
  lastAlertAt: z.number().nullable(),
  group: z.string().min(1).optional(),
});

const fileSchema = z.object({ incidents: z.array(incidentSchema) });

/** The open incidents in `file`; none when it is missing or unreadable (`onError` tells why). */
export function readOpenIncidents(file: string, onError?: (err: unknown) => void): Incident[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError?.(err);
    return [];
  }
  try {
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.incidents;
    onError?.(new Error(`${file}: not a list of open incidents`));
  } catch {
    onError?.(new Error(`${file}: not JSON`));
  }
  return [];
}

/**
 * Writes the open incidents, one write at a time, the latest list last; nothing while `writable` says
 * no (another app on the data folder keeps the file).
 */
export class OpenIncidentsFile {
  private readonly inTurn = serial();

  constructor(
    readonly file: string,
    private readonly onError?: (err: unknown) => void,
    private readonly writable?: () => boolean,
  ) {}

  save(incidents: Incident[]): void {
    if (this.writable && !this.writable()) return;
    const body = JSON.stringify({ incidents }) + '\n';
    void this.inTurn(async () => {
      try {
        await mkdir(dirname(this.file), { recursive: true });
        await writeFileAtomic(this.file, body);
      } catch (err) {
        this.onError?.(err);
      }
    });
  }

  flush(): Promise<void> {
    return this.inTurn.idle();
  }
}
