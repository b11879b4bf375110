// Watches the config folder's shared files for writes from outside this process: config.json (a
// command run while the app runs, or another app on the same config) and companion.json (the
// preferences, which two apps on one config share: the desktop app and `serve`). Each burst of changes
// calls `changed` once, a moment after the last one. A failure of `changed` (a file that no longer
// loads) is logged and waits for the next write. A folder that does not exist yet is made (0700), then watched.
// Watching is best effort: where the folder cannot be watched, the app reads the files again at its next change.
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import type { Clock, Logger } from '../../core/ports';
import { CONFIG_FILE_NAME } from '../../core/teams/paths';
import { PREFS_FILE_NAME } from './prefs';

const WATCHED: ReadonlySet<string> = new Set([CONFIG_FILE_NAME, PREFS_FILE_NAME]);

/** Writes closer together than this are one change. */
const SETTLE_MS = 150;

export class ConfigWatch {
  private watcher: FSWatcher | null = null;
  private timer: unknown = null;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    dir: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly changed: () => Promise<void>,
  ) {
    try {
      // A folder not made yet (a first start; a hub, whose config is its database's) is made to be watched.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.watcher = watch(dir, { persistent: false }, (_event, name) => {
        // Some platforms do not say which file changed.
        if (name === null || WATCHED.has(name)) this.schedule();
      });
      this.watcher.on('error', (err) => {
        this.logger.warn('config: watching the config folder stopped', { error: err.message });
        this.watcher?.close();
        this.watcher = null;
      });
    } catch (err) {
      this.logger.warn('config: the config folder cannot be watched', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Another process changed the config where this folder's watch cannot see it (a shared store said so). */
  changedElsewhere(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.run();
    }, SETTLE_MS);
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    do {
      this.again = false;
      this.running = this.changed().catch((err: unknown) =>
        this.logger.warn('config: a shared config file changed but could not be read', {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
      await this.running;
      this.running = null;
    } while (this.again && !this.closed);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.watcher?.close();
    this.watcher = null;
  }
}
