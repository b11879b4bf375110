// message.ids already received (and verified) per agent, for the `duplicate` verdict.
// Rebuilt from the log at open; a check-and-claim is synchronous so two concurrent retries of
// one message cannot both pass.
import type { StoredDelivery } from './types';

export class SeenIndex {
  private readonly byAgent = new Map<string, Set<string>>();

  static fromDeliveries(deliveries: Iterable<StoredDelivery>): SeenIndex {
    const index = new SeenIndex();
    for (const d of deliveries) {
      if (d.verdict.ok && d.summary.messageId !== null) index.claim(d.agentId, d.summary.messageId);
    }
    return index;
  }

  has(agentId: string, messageId: string): boolean {
    return this.byAgent.get(agentId)?.has(messageId) ?? false;
  }

  /** Marks the id seen; false when it already was. */
  claim(agentId: string, messageId: string): boolean {
    let set = this.byAgent.get(agentId);
    if (!set) this.byAgent.set(agentId, (set = new Set()));
    if (set.has(messageId)) return false;
    set.add(messageId);
    return true;
  }

  release(agentId: string, messageId: string): void {
    this.byAgent.get(agentId)?.delete(messageId);
  }
}
