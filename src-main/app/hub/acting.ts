// The member on whose behalf the hub runs a request: set by the hub's server around each request's handler
// (AsyncLocalStorage), read by whatever records who did something (an acknowledgement, a registration, a
// send, a deletion). Outside a hub request — the desktop, `serve`, a command — there is none.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Member } from './members';

const acting = new AsyncLocalStorage<Member>();

/** Runs `fn` as `member`: actingMember() answers that member inside it (and in what it awaits). */
export function asMember<T>(member: Member, fn: () => T): T {
  return acting.run(member, fn);
}

/** The member the current hub request runs for, or null outside one. */
export function actingMember(): Member | null {
  return acting.getStore() ?? null;
}
