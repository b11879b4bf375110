// What a hub publishes of its polls: an agent's `health.changed` when what its row shows changes (the health,
// the state, the number, the error…), and otherwise once every REFRESH_INTERVALS poll intervals, so "polled …
// ago" moves on without a row in hub_events for every poll of every agent (10,000 agents at 15 s: 667 rows/s
// published per poll, about 170 with this). health.snapshot reads the exact last poll from Postgres.
import type { AgentHealthDTO } from '../../../src-shared/contract';
import type { ContractEvents } from '../contract';

/** An unchanged agent's health is published again after this many poll intervals (its checkedAt moved). */
const REFRESH_INTERVALS = 4;

/** What the agent's row shows, but for when it was last polled. */
function shown(h: AgentHealthDTO): string {
  const { checkedAt: _checkedAt, ...rest } = h;
  return JSON.stringify(rest);
}

/**
 * The companion's events with `health.changed` published only on a change (or a refresh of an unchanged
 * agent's poll time every REFRESH_INTERVALS intervals); every other event as it comes.
 */
export function healthOnChange(events: ContractEvents, intervalMs: () => number): ContractEvents {
  return {
    onAny(fn) {
      const last = new Map<string, { shown: string; checkedAt: number | null }>();
      return events.onAny((e) => {
        if (e.name !== 'health.changed') return fn(e);
        const h = e.payload;
        const key = `${h.teamId}\u0000${h.agentId}`;
        const before = last.get(key);
        const now = shown(h);
        const stale =
          before === undefined ||
          before.checkedAt === null ||
          h.checkedAt === null ||
          h.checkedAt - before.checkedAt >= REFRESH_INTERVALS * intervalMs();
        if (before?.shown === now && !stale) return;
        last.set(key, { shown: now, checkedAt: h.checkedAt });
        fn(e);
      });
    },
  };
}
