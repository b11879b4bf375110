// What every part of the contract implementation shares: the companion, its clock, the emitter of
// contract events, and the team lookup that answers not-found in contract terms.
import type { EventName, Events } from '../../../src-shared/contract';
import type { Companion, TeamView } from '../companion/companion';
import { AppError } from '../errors';

export type Publish = <E extends EventName>(name: E, payload: Events[E]) => void;

export interface Scope {
  readonly c: Companion;
  now(): number;
  publish: Publish;
  /** The team by id or label; not-found (NO_TEAM) when there is none. */
  requireTeam(teamId: string): TeamView;
}

export function createScope(c: Companion, publish: Publish): Scope {
  return {
    c,
    now: () => c.clock.now(),
    publish,
    requireTeam(teamId) {
      const t = c.findTeam(teamId);
      if (!t) throw new AppError('not-found', 'NO_TEAM', `No team "${teamId}".`);
      return t;
    },
  };
}
