// The companion's own preferences that the team store settings do not hold: desktop notifications
// on/off, when an incident turns urgent, where the tunnel forwards, whether it accepts deliveries
// signed only with the legacy header, the public URL each agent's webhook was registered with, and
// the last quiet hours (kept while they are switched off), and when a new message notifies (on/off,
// its text shown, quiet hours, the agents muted).
// <configDir>/companion.json, atomic writes, mode 0600. No secret is ever stored here.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { Logger } from '../../core/ports';
import { httpUrlSchema, storedUrlSchema as httpUrl } from '../../core/url';
import { serial } from '../../core/serial';

export const PREFS_FILE_NAME = 'companion.json';

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);

const messageNotificationsSchema = z.object({
  enabled: z.boolean().default(true),
  showText: z.boolean().default(true),
  quietHours: z
    .object({ enabled: z.boolean(), start: hhmm, end: hhmm })
    .default({ enabled: false, start: '22:00', end: '07:00' }),
  muted: z
    .array(z.object({ teamId: z.string().min(1).max(64), agentId: z.string().min(1).max(200) }))
    .max(10_000)
    .default([]),
});

const prefsSchema = z.object({
  version: z.literal(1).default(1),
  notifications: z.boolean().default(true),
  escalateAfterMin: z.number().int().min(0).max(1440).default(5),
  forwardTo: httpUrl.nullable().default(null),
  allowLegacySignature: z.boolean().default(false),
  quietHours: z.object({ start: hhmm, end: hhmm }).default({ start: '22:00', end: '07:00' }),
  webhooks: z
    .array(
      // publicUrl: the registered URL as shown (redacted, so a user and password show as `***`).
      z.object({ teamId: z.string().min(1).max(64), agentId: z.string().min(1).max(200), publicUrl: httpUrlSchema }),
    )
    .max(10_000)
    .default([]),
  messageNotifications: messageNotificationsSchema.default(() => messageNotificationsSchema.parse({})),
});

export type Prefs = z.output<typeof prefsSchema>;

function defaultPrefs(): Prefs {
  return prefsSchema.parse({});
}

export class PrefsStore {
  private prefs: Prefs = defaultPrefs();
  private readonly inTurn = serial();

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  get file(): string {
    return path.join(this.dir, PREFS_FILE_NAME);
  }

  /** Loads the file; a missing one gives the defaults, an unreadable one too, with a warning. */
  async load(): Promise<Prefs> {
    const read = await this.read('using defaults');
    if (read) this.prefs = read;
    return this.get();
  }

  /**
   * Reads the file again (another app on this config folder, the desktop app beside `serve`, may have
   * written it): true when what it holds differs from what this store had. A file that does not read
   * keeps what this store has.
   */
  reload(): Promise<boolean> {
    // In turn with the changes: a read begun before a change is written is never taken after it.
    return this.inTurn(() => this.take());
  }

  /** Takes the file's preferences when they differ from this store's (see reload). */
  private async take(): Promise<boolean> {
    const read = await this.read('the preferences in use are kept');
    if (!read || JSON.stringify(read) === JSON.stringify(this.prefs)) return false;
    this.prefs = read;
    return true;
  }

  /** The file's preferences, or null when it is missing or does not read (said in the log). */
  private async read(instead: string): Promise<Prefs | null> {
    let text: string | null = null;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn(`companion: preferences unreadable; ${instead}`, { file: this.file });
    }
    if (text !== null) {
      let raw: unknown = undefined;
      try {
        raw = JSON.parse(text);
      } catch {
        raw = undefined;
      }
      // Message notification settings that do not read leave the rest of the file in force.
      if (raw !== null && typeof raw === 'object' && 'messageNotifications' in raw) {
        const m = messageNotificationsSchema.safeParse((raw as { messageNotifications: unknown }).messageNotifications);
        if (!m.success) {
          this.logger.warn('companion: message notification settings invalid; using their defaults', {
            file: this.file,
            problem: m.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
          });
          delete (raw as { messageNotifications?: unknown }).messageNotifications;
        }
      }
      const parsed = prefsSchema.safeParse(raw);
      if (parsed.success) return parsed.data;
      this.logger.warn(`companion: preferences invalid; ${instead}`, { file: this.file });
    }
    return null;
  }

  get(): Prefs {
    return structuredClone(this.prefs);
  }

  /**
   * Applies `fn` to the preferences as the file holds them now (another app may have changed them),
   * validates, writes, and only then keeps them. Serialised.
   */
  update(fn: (p: Prefs) => Prefs): Promise<Prefs> {
    return this.inTurn(async () => {
      await this.take();
      const next = prefsSchema.parse(fn(this.get()));
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      this.prefs = next;
      return this.get();
    });
  }

  publicUrlOf(teamId: string, agentId: string): string | null {
    return this.prefs.webhooks.find((w) => w.teamId === teamId && w.agentId === agentId)?.publicUrl ?? null;
  }
}
