// The agents' signing secrets as the receiver holds them: read from their keeper (the keychain, a
// file, the command line) once when an agent is first needed or named (load), and again only when
// they may have changed: when told so (reload: a secret stored by this process, a registration that
// ended), and, in the background, when a delivery of the agent failed verification and the secrets
// were read more than REFRESH_AFTER_MS ago (a secret stored by another process). A delivery never
// waits for a re-read, and a flood of forged deliveries causes at most one read per agent per
// REFRESH_AFTER_MS. Look-ups made while a read runs share it; a reload never shares a read that
// began before it was asked for (that read may have begun before the secret was stored). A failed
// read is not kept; the next read is tried no sooner than RETRY_AFTER_MS after it.
import type { Clock } from '../ports';

/** A delivery refused with secrets read longer ago than this starts a read in the background. */
const REFRESH_AFTER_MS = 5_000;
/** After a failed read (a locked keychain), the next one no sooner than this. */
const RETRY_AFTER_MS = 5_000;

interface Kept {
  secrets: string[];
  at: number;
}

interface Read {
  p: Promise<string[]>;
  at: number;
}

export class SecretCache {
  private readonly kept = new Map<string, Kept>();
  private readonly reads = new Map<string, Read>();
  private readonly failed = new Map<string, { err: unknown; at: number }>();

  constructor(
    private readonly read: (agentId: string) => Promise<string[]>,
    private readonly clock: Clock,
  ) {}

  /** The secrets held for the agent, or undefined (not read yet: then call get). */
  peek(agentId: string): string[] | undefined {
    return this.kept.get(agentId)?.secrets;
  }

  /**
   * The secrets: held, or by the read under way, or read now (the agent's first look-up). After a
   * failed read, that failure again until RETRY_AFTER_MS passed.
   */
  get(agentId: string): Promise<string[]> {
    const k = this.kept.get(agentId);
    if (k !== undefined) return Promise.resolve(k.secrets);
    const running = this.reads.get(agentId);
    if (running) return running.p;
    const f = this.failed.get(agentId);
    if (f !== undefined && this.clock.now() - f.at < RETRY_AFTER_MS) return Promise.reject(f.err);
    return this.start(agentId);
  }

  /**
   * The secrets read afresh: by a new read, or, given `since`, by a read that began then or later
   * (shared by the reloads it serves). A new read supersedes one under way.
   */
  reload(agentId: string, since?: number): Promise<string[]> {
    if (since !== undefined) {
      const running = this.reads.get(agentId);
      if (running) {
        if (running.at >= since) return running.p;
      } else {
        const k = this.kept.get(agentId);
        if (k !== undefined && k.at >= since) return Promise.resolve(k.secrets);
      }
    }
    return this.start(agentId);
  }

  /** Starts reading the agent's secrets in the background (nothing waits for it; a failure is kept). */
  load(agentId: string): void {
    if (this.kept.has(agentId) || this.reads.has(agentId)) return;
    this.get(agentId).catch(() => undefined);
  }

  /**
   * A delivery of the agent failed verification: when its secrets were read more than
   * REFRESH_AFTER_MS ago and no read runs, they are read again in the background.
   */
  refused(agentId: string): void {
    if (this.reads.has(agentId)) return;
    const k = this.kept.get(agentId);
    const f = this.failed.get(agentId);
    const last = Math.max(k?.at ?? -Infinity, f?.at ?? -Infinity);
    if (this.clock.now() - last < REFRESH_AFTER_MS) return;
    this.start(agentId).catch(() => undefined);
  }

  private start(agentId: string): Promise<string[]> {
    const at = this.clock.now();
    const read: Read = {
      at,
      p: this.read(agentId).then(
        (secrets) => {
          const list = secrets.filter((s) => typeof s === 'string' && s.length > 0);
          if (this.reads.get(agentId) === read) {
            this.reads.delete(agentId);
            this.failed.delete(agentId);
            this.kept.set(agentId, { secrets: list, at });
          }
          return list;
        },
        (err: unknown) => {
          if (this.reads.get(agentId) === read) {
            this.reads.delete(agentId);
            this.failed.set(agentId, { err, at: this.clock.now() });
          }
          throw err;
        },
      ),
    };
    this.reads.set(agentId, read);
    return read.p;
  }
}
