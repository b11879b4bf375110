// The agents' signing secrets as the receiver reads them: from the keeper (the keychain, a file, the
// command line) at most once per agent within TTL_MS, so a busy receiver does not read the keychain
// at every delivery. Nothing is refused because of the cache: a delivery that fails verification
// with secrets read earlier is verified again with secrets read afresh (ingest.ts), so a secret
// stored a moment ago by another process or screen always counts. Look-ups of one agent made while
// a read is under way share it (a fresh one never does: that read may have begun before the secret
// was stored); a failed read is never kept.
import type { Clock } from '../ports';

/** How long secrets read for an agent are used without reading them again. */
const TTL_MS = 1_000;

interface Kept {
  secrets: string[];
  at: number;
}

export class SecretCache {
  private readonly kept = new Map<string, Kept>();
  private readonly reads = new Map<string, Promise<string[]>>();

  constructor(
    private readonly read: (agentId: string) => Promise<string[]>,
    private readonly clock: Clock,
  ) {}

  /** The secrets read within TTL_MS, or undefined (then call get). */
  peek(agentId: string): string[] | undefined {
    const k = this.kept.get(agentId);
    if (k === undefined) return undefined;
    if (this.clock.now() - k.at < TTL_MS) return k.secrets;
    this.kept.delete(agentId);
    return undefined;
  }

  /** A read of the agent's secrets is under way (a look-up now shares it). */
  reading(agentId: string): boolean {
    return this.reads.has(agentId);
  }

  /**
   * The secrets: read within TTL_MS, or by the read under way, or read now. `fresh`: read now,
   * whatever was read before.
   */
  get(agentId: string, fresh = false): Promise<string[]> {
    if (!fresh) {
      const k = this.peek(agentId);
      if (k !== undefined) return Promise.resolve(k);
      const running = this.reads.get(agentId);
      if (running) return running;
    }
    const at = this.clock.now();
    const p = this.read(agentId).then(
      (secrets) => {
        const list = secrets.filter((s) => typeof s === 'string' && s.length > 0);
        if (this.reads.get(agentId) === p) {
          this.reads.delete(agentId);
          this.kept.set(agentId, { secrets: list, at });
        }
        return list;
      },
      (err: unknown) => {
        if (this.reads.get(agentId) === p) this.reads.delete(agentId);
        throw err;
      },
    );
    this.reads.set(agentId, p);
    return p;
  }
}
