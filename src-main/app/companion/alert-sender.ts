// Which app posts the alerts (to the alert webhook and Alertmanager) and keeps the on-call files
// (timelines, open incidents, history). Two apps on one data folder (the desktop app and `serve`)
// each run a monitor and raise the same alerts; posting both would page the team twice, Alertmanager
// would see one app's resolve followed by the other's resend, and each change would be written twice.
// So one of them does it: the holder of `<data dir>/alerts/sender.lock` (core/lock-file.ts). The
// other still watches, notifies its own windows and says who posts (`elsewhere`), tries the lock
// again every 10 s (RETRY_MS) and takes over from the moment it holds it (the first app stopped or
// died). A lock that cannot be taken at all (a folder that cannot be written) names no other app:
// this one then posts, as a lone app does, and goes on trying to take it.
import { join } from 'node:path';
import { acquireLockFile, LockedError, type HeldLock, type LockHolder } from '../../core/lock-file';
import type { Clock, Logger } from '../../core/ports';

const LOCK_DIR = 'alerts';
const LOCK_FILE = 'sender.lock';
/** How often an app that does not post tries to take over. */
const RETRY_MS = 10_000;

export interface AlertSenderOptions {
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** This app started or stopped posting (elsewhere() changed). */
  onChange(): void;
  /** How often to try again while another app holds the lock (default RETRY_MS). */
  retryMs?: number;
}

export class AlertSender {
  private held: HeldLock | null = null;
  /** The lock could not be taken for a reason other than another app holding it. */
  private unheld = false;
  private holder: LockHolder | null = null;
  private timer: unknown = null;
  private closed = false;
  private trying: Promise<void> | null = null;

  constructor(private readonly o: AlertSenderOptions) {}

  /** Takes the lock, or notes who holds it and tries again every RETRY_MS. */
  start(): Promise<void> {
    return this.attempt();
  }

  /** Whether this app posts the alerts and keeps the on-call files. */
  here(): boolean {
    return this.held !== null || this.unheld;
  }

  /** The other app that posts it, while this one does not (null: this one does, or nobody could be named). */
  elsewhere(): LockHolder | null {
    return this.here() ? null : this.holder;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.trying;
    await this.held?.release();
    this.held = null;
  }

  private attempt(): Promise<void> {
    this.trying ??= this.take().finally(() => (this.trying = null));
    return this.trying;
  }

  private async take(): Promise<void> {
    if (this.closed || this.held) return;
    const was = this.here();
    try {
      this.held = await acquireLockFile(
        join(this.o.dataDir, LOCK_DIR),
        LOCK_FILE,
        () => 'the alerts are posted by another app on this data folder',
      );
      this.holder = null;
      this.unheld = false;
      if (this.closed) {
        await this.held.release();
        this.held = null;
        return;
      }
      this.o.logger.info('alerts: this app posts the alerts (alert webhook, Alertmanager)');
      if (!was) this.o.onChange();
      return;
    } catch (err) {
      const before = JSON.stringify([this.here(), this.holder]);
      if (err instanceof LockedError) {
        this.holder = err.holder;
        this.unheld = false;
      } else {
        if (!this.unheld)
          this.o.logger.warn('alerts: the alert sender lock could not be taken; this app posts the alerts', {
            error: err instanceof Error ? err.message : String(err),
          });
        this.holder = null;
        this.unheld = true;
      }
      if (JSON.stringify([this.here(), this.holder]) !== before) this.o.onChange();
    }
    if (this.closed) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      void this.attempt();
    }, this.o.retryMs ?? RETRY_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }
}
