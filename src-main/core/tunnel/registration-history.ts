// The webhook registrations this install made, per agent: the URL (redacted: a user and password,
// query values and token-like path segments hidden, register.ts shownWebhookUrl), when, and from
// which command or screen. The service keeps one webhook URL per agent and offers no way to
// read it back, so this history is all this install can say about where an agent's deliveries go.
// Never a secret. <data dir>/webhook-registrations.json, mode 0600, atomic writes; a file that cannot
// be read as a history is set aside (renamed, never deleted) with a clear message, and a new one is
// started.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { shownWebhookUrl } from './register';
import { serial } from '../serial';

const REGISTRATION_HISTORY_FILE = 'webhook-registrations.json';

/**
 * Registrations kept per agent (the oldest are dropped first).
 */
const MAX_REGISTRATIONS_PER_AGENT = 50;

/** What the URL was to this install when it was registered. */
export type RegistrationTarget = 'receiver' | 'exposure' | 'other';

export interface RegistrationRecord {
  /** The saved team; null for a service given by its base URL alone. */
  teamId: string | null;
  agentId: string;
  /** The URL registered, redacted (a user and password, query values, token-like path segments). */
  url: string;
  /** ms epoch */
  at: number;
  /** The command or screen that registered it ("webhook set", "app: Tunnel → Register"). */
  source: string;
  /** The team hub's member who registered it (a registration through a hub). */
  registeredBy?: string;
  /** receiver: this install's local receiver; exposure: its public URL; other: an address of someone else's. */
  target: RegistrationTarget;
}

const recordSchema = z.object({
  teamId: z.string().min(1).max(200).nullable(),
  agentId: z.string().min(1).max(200),
  url: z.string().min(1).max(4096),
  at: z.number().int().nonnegative(),
  source: z.string().min(1).max(200),
  registeredBy: z.string().max(64).optional(),
  target: z.enum(['receiver', 'exposure', 'other']),
});

const fileSchema = z.object({ version: z.literal(1), registrations: z.array(recordSchema).max(100_000) });

export interface HistoryRead {
  /** Newest first. */
  entries: RegistrationRecord[];
  /** Why the file was set aside (a new history starts), or null. */
  problem: string | null;
}

/**
 * A registration history as the companion uses it: this class (a data folder's file), or one several companions
 * share (a hub's replicas, in its database). `file` names the data folder whose registrations take turns.
 */
export type RegistrationLog = Pick<RegistrationHistory, 'file' | 'list' | 'all' | 'append' | 'forget'>;

export class RegistrationHistory {
  private readonly inTurn = serial();

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The history kept in a data folder. */
  static in(dataDir: string, now?: () => number): RegistrationHistory {
    return new RegistrationHistory(path.join(dataDir, REGISTRATION_HISTORY_FILE), now);
  }

  /** One agent's registrations, newest first. */
  async list(teamId: string | null, agentId: string): Promise<HistoryRead> {
    const { all, problem } = await this.inTurn(() => this.read());
    return { entries: all.filter((r) => r.teamId === teamId && r.agentId === agentId).reverse(), problem };
  }

  /** Every registration kept, newest first. */
  async all(): Promise<HistoryRead> {
    const { all, problem } = await this.inTurn(() => this.read());
    return { entries: all.reverse(), problem };
  }

  /** Adds a registration (its URL redacted); answers why an old file was set aside, or null. */
  async append(r: Omit<RegistrationRecord, 'at'> & { at?: number }): Promise<string | null> {
    const rec = recordSchema.parse({ ...r, url: shownWebhookUrl(r.url, r.agentId), at: r.at ?? this.now() });
    return this.inTurn(async () => {
      const { all, problem } = await this.read();
      all.push(rec);
      const mine = all.filter((x) => x.teamId === rec.teamId && x.agentId === rec.agentId);
      const drop = new Set(mine.slice(0, Math.max(0, mine.length - MAX_REGISTRATIONS_PER_AGENT)));
      const kept = all.filter((x) => !drop.has(x));
      await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, registrations: kept })}\n`, { mode: 0o600 });
      return problem;
    });
  }

  /** Removes one agent's registrations (the agent or its team was removed). */
  async forget(teamId: string | null, agentId?: string): Promise<void> {
    await this.inTurn(async () => {
      const { all } = await this.read();
      const kept = all.filter((x) => !(x.teamId === teamId && (agentId === undefined || x.agentId === agentId)));
      if (kept.length === all.length) return;
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, registrations: kept })}\n`, { mode: 0o600 });
    });
  }

  private async read(): Promise<{ all: RegistrationRecord[]; problem: string | null }> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { all: [], problem: null };
      throw new Error(
        `the webhook registration history ${this.file} could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    let why: string;
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      // Entries an older version kept with their query or a token in their path are shown redacted too.
      if (parsed.success)
        return {
          all: parsed.data.registrations.map((r) => ({ ...r, url: shownWebhookUrl(r.url, r.agentId) })),
          problem: null,
        };
      const issue = parsed.error.issues[0];
      why = `not a registration history (${issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : 'invalid'})`;
    } catch {
      why = 'not valid JSON';
    }
    const aside = `${this.file}.unreadable-${this.now()}`;
    await fs.rename(this.file, aside).catch(() => undefined);
    return {
      all: [],
      problem: `the webhook registration history ${this.file} was ${why}; it was set aside as ${path.basename(aside)} and a new one started`,
    };
  }
}
