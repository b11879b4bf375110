// Webhook registrations under way, per agent. The service may post a delivery signed with the new
// secret before the reply to its PUT (carrying that secret) reaches this install: a delivery that
// fails verification while its agent's registration is in flight is held until the registration
// ends (the new secret stored) and verified again then (ingest.ts).
// A registration made by another process on the same data folder (a `webhook set` in a terminal
// while `listen` or the app receives, or the app while `listen` does) is known by the mark it
// leaves in the folder's registering/ subfolder while it runs: a file named <agent>@<pid>-<n>,
// removed when it ends (<n> tells apart two registrations in one process, such as two commands run
// in one test). A mark whose process is gone, or older than MARK_MAX_MS (a registration that died
// without removing it), counts for nothing. Marks are read only for a delivery that failed
// verification, never on the way of one that passes.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../lock-file';
import type { Clock } from '../ports';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files';

/** The data folder's subfolder of marks. */
export const REGISTERING_DIR = 'registering';

/** A mark older than this counts for nothing (a registration's PUT gives up well before). */
const MARK_MAX_MS = 60_000;

/** How often the marks of other processes are looked at while a delivery is held. */
const POLL_MS = 50;

interface Pending {
  count: number;
  done: Promise<void>;
  resolve(): void;
  /** This process's mark, or null (no folder given, or it could not be written). */
  mark: string | null;
}

const markPrefix = (agentId: string) => `${encodeURIComponent(agentId)}@`;

/** Tells apart the marks of the registries of one process. */
let registries = 0;

export class RegistrationsInFlight {
  private readonly pending = new Map<string, Pending>();
  private readonly tag = `${process.pid}-${++registries}`;

  /** `dir`: where marks are left and read (the data folder's registering/); none: this process only. */
  constructor(private readonly dir?: string) {}

  /** A registration of agentId begins; the function answered ends it (once, whatever the outcome). */
  begin(agentId: string): () => void {
    let p = this.pending.get(agentId);
    if (!p) {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      p = { count: 0, done, resolve, mark: this.leaveMark(agentId) };
      this.pending.set(agentId, p);
    }
    p.count++;
    const mine = p;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      mine.count--;
      if (mine.count === 0) {
        if (this.pending.get(agentId) === mine) this.pending.delete(agentId);
        if (mine.mark !== null) rmSync(mine.mark, { force: true });
        mine.resolve();
      }
    };
  }

  /** A registration of agentId is under way, here or in another process on the same data folder. */
  inFlight(agentId: string): boolean {
    return this.pending.has(agentId) || this.markedElsewhere(agentId);
  }

  /**
   * Resolves true once no registration of agentId is in flight (here or elsewhere), false when maxMs
   * passed first.
   */
  async settled(agentId: string, maxMs: number, clock: Clock): Promise<boolean> {
    const deadline = clock.now() + maxMs;
    for (;;) {
      const p = this.pending.get(agentId);
      const left = deadline - clock.now();
      if (p) {
        if (left <= 0 || !(await this.ended(p, left, clock))) return false;
      } else if (this.markedElsewhere(agentId)) {
        if (left <= 0) return false;
        await new Promise<void>((r) => clock.setTimeout(r, Math.min(POLL_MS, left)));
      } else {
        return true;
      }
    }
  }

  private ended(p: Pending, maxMs: number, clock: Clock): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), maxMs);
      void p.done.then(() => {
        clock.clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Writes this process's mark for agentId (null when there is no folder or it cannot be written). */
  private leaveMark(agentId: string): string | null {
    if (this.dir === undefined) return null;
    const file = join(this.dir, `${markPrefix(agentId)}${this.tag}`);
    try {
      mkdirSync(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      writeFileSync(file, '', { mode: PRIVATE_FILE_MODE });
      return file;
    } catch {
      // Without its mark, a receiver in another process answers an early delivery 401 and the
      // service retries it: nothing is lost, so the registration goes ahead.
      return null;
    }
  }

  /** A registration of agentId is under way elsewhere: a mark of another registry, recent, its process alive. */
  private markedElsewhere(agentId: string): boolean {
    if (this.dir === undefined) return false;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return false;
    }
    const prefix = markPrefix(agentId);
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const tag = name.slice(prefix.length);
      // This registry's own registrations are in `pending`.
      if (tag === this.tag) continue;
      const pid = Number(tag.split('-')[0]);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      try {
        if (Date.now() - statSync(join(this.dir, name)).mtimeMs > MARK_MAX_MS) continue;
      } catch {
        continue;
      }
      if (processAlive(pid)) return true;
    }
    return false;
  }
}
