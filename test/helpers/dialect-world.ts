// One emulator team per dialect, for the suites that run the same checks against every dialect:
// each team speaks one dialect and has a connected agent (scripted reply with an action), an
// unlinked one (409) and a reconnecting one (503).
import { type EmulatorSeed } from '../../src-main/emulator';
import { DIALECT_NAMES } from '../../src-main/emulator/dialect';

export const DIALECT_REPLY = 'Hello from the agent';
export const DIALECT_ACTION = 'lookup_order';
export const KNOWN_PHONE = '+15550102000';

export interface DialectTeam {
  dialect: string;
  apiKey: string;
  ok: string;
  unlinked: string;
  reconnecting: string;
}

export function dialectTeam(dialect: string): DialectTeam {
  return {
    dialect,
    apiKey: `key-${dialect}-0123456789`,
    ok: `ok-${dialect}`,
    unlinked: `unlinked-${dialect}`,
    reconnecting: `recon-${dialect}`,
  };
}

export const DIALECT_TEAMS: DialectTeam[] = DIALECT_NAMES.map(dialectTeam);

/** The seed: a team per dialect (send limit `sendsPerMinute`), and the known phone number. */
export function dialectSeed(sendsPerMinute = 60): EmulatorSeed {
  return {
    teams: DIALECT_TEAMS.map((t, i) => ({
      id: `team-${t.dialect}`,
      apiKey: t.apiKey,
      sendsPerMinute,
      dialect: [t.dialect],
      agents: [
        { agentId: t.ok, state: 'connected' as const, phone: `1555020${String(i).padStart(4, '0')}` },
        { agentId: t.unlinked, state: 'unlinked' as const },
        { agentId: t.reconnecting, state: 'reconnecting' as const, phone: `1555030${String(i).padStart(4, '0')}` },
      ],
    })),
    contacts: [KNOWN_PHONE.slice(1)],
  };
}

/** The chat script every connected agent gets: a fixed reply with one action, no pacing. */
export const DIALECT_SCRIPT = {
  reply: DIALECT_REPLY,
  actions: [{ name: DIALECT_ACTION, orderId: 7 }],
  tokenDelayMs: 0,
};
