// Webhook registrations under way, per agent. The service may post a delivery signed with the new
// secret before the reply to its PUT (carrying that secret) reaches this install: a delivery that
// fails verification while its agent's registration is in flight is held until the registration
// ends (the new secret stored) and verified again then (ingest.ts).
import type { Clock } from '../ports';

interface Pending {
  count: number;
  done: Promise<void>;
  resolve(): void;
}

export class RegistrationsInFlight {
  private readonly pending = new Map<string, Pending>();

  /** A registration of agentId begins; the function answered ends it (once, whatever the outcome). */
  begin(agentId: string): () => void {
    let p = this.pending.get(agentId);
    if (!p) {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      p = { count: 0, done, resolve };
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
        mine.resolve();
      }
    };
  }

  inFlight(agentId: string): boolean {
    return this.pending.has(agentId);
  }

  /** Resolves true once no registration of agentId is in flight, false when maxMs passed first. */
  settled(agentId: string, maxMs: number, clock: Clock): Promise<boolean> {
    const p = this.pending.get(agentId);
    if (!p) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), maxMs);
      void p.done.then(() => {
        clock.clearTimeout(timer);
        // A newer registration that began meanwhile is still in flight: not settled.
        resolve(!this.pending.has(agentId));
      });
    });
  }
}
