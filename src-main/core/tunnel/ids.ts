// Sortable delivery ids: ULIDs (48-bit millisecond time + 80 random bits, Crockford base32) from the
// `ulid` package's monotonic factory, so the ids of one generator strictly increase, even within one
// millisecond. Its random characters come from a pool of random bytes: this runs once per delivery
// and per forward attempt, and the pool costs one system call per 4096 characters, not one each.
import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import type { Clock } from '../ports';

const POOL_BYTES = 4096;

export type IdGenerator = () => string;

export function createIdGenerator(clock: Pick<Clock, 'now'>, random: (n: number) => Buffer = randomBytes): IdGenerator {
  let pool: Buffer = Buffer.alloc(0);
  let used = 0;
  const prng = (): number => {
    if (used >= pool.length) {
      pool = random(POOL_BYTES);
      used = 0;
    }
    return pool[used++]! / 256;
  };
  const next = monotonicFactory(prng);
  // The factory reads a time of 0 as "now": the clock's time is at least 1 ms.
  return () => next(Math.max(1, Math.floor(clock.now())));
}
