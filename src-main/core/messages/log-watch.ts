// Watching the tunnel's log from outside its writer (`channel-companion messages --follow`, or the app
// while `listen` writes the data folder): a cheap look at the segment files (names, sizes, times)
// says whether anything changed; only then is the log opened again, read-only, through its reader
// API. The index keeps each message once, so reading everything again adds only what is new.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileStamp } from '../file-stamp';
import type { Clock } from '../ports';
import { EventLog, type DeliveryBody } from '../tunnel';
import { messageBodies } from './inbound';

export class TunnelLogWatch {
  private stamp: string | null = null;

  /** `tunnelDir`: the tunnel's data folder (the log is in its deliveries/ subfolder). */
  constructor(
    private readonly tunnelDir: string,
    private readonly clock: Clock,
  ) {}

  /** The segment files' names, sizes and times. */
  private async look(): Promise<string> {
    const folder = join(this.tunnelDir, 'deliveries');
    try {
      const names = (await readdir(folder)).filter((n) => n.endsWith('.jsonl')).sort();
      const parts = await Promise.all(names.map(async (n) => `${n}:${await fileStamp(join(folder, n))}`));
      return parts.join(',');
    } catch {
      return 'none';
    }
  }

  /** Every delivery that may be a message, read afresh (read-only: never cuts, rolls or writes). */
  async read(): Promise<Iterable<DeliveryBody>> {
    this.stamp = await this.look();
    const log = new EventLog({ dataDir: this.tunnelDir, clock: this.clock, readOnly: true });
    await log.open();
    return messageBodies(log);
  }

  /** The deliveries when the log changed since the last read, else null. */
  async readIfChanged(): Promise<Iterable<DeliveryBody> | null> {
    const now = await this.look();
    if (now === this.stamp) return null;
    return this.read();
  }
}
