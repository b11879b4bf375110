// What the alert policy keeps of one agent between polls: shared by the per-agent rules
// (policy.ts) and the team-wide ones (policy-teams.ts).
import type { Health } from './health';
import type { Incident } from './types';

export interface AgentState {
  teamId: string;
  agentId: string;
  phone: string | null;
  /** As last reported (may be opaque). */
  health: Health;
  /** The last health the service itself reported ('unknown' before any). */
  known: Health;
  incident: Incident | null;
  /** When the agent left connected for reconnecting / needs-scan, within the flap window. */
  drops: number[];
  /** Reconnecting, while no incident is open yet (the grace period): since the last good poll, seen at. */
  drop: (Spell & { graceMs: number }) | null;
  /** Connected again since, while its reconnecting / flapping incident waits to close. */
  backSince: number | null;
  /** Unreachable, while polls of it fail: since the last good poll, seen at. */
  down: Spell | null;
  /** The agent was seen linked (connected/reconnecting) since monitoring started. */
  wasLinked: boolean;
}

/** A spell of trouble: `since` the last good poll (incidents count from there), `seen` when observed (grace and delays count from there). */
export interface Spell {
  since: number;
  seen: number;
}
