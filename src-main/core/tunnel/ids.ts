// Sortable delivery ids: ULIDs (48-bit millisecond time + 80 random bits, Crockford base32),
// monotonic: the ids of one generator strictly increase, even within one millisecond (the random
// part of the last id is incremented) and when the clock goes back (its time is kept). Its random
// characters come from a pool of random bytes: this runs once per delivery and per forward attempt,
// and the pool costs one system call per 4096 characters, not one each. Each id is made as one flat
// string (written into a small buffer, then read as text): the index keeps the id of every delivery
// it holds, and a string built a character at a time would be kept as a tree of 26 pieces.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports';

const POOL_BYTES = 4096;
const ENCODING = Buffer.from('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 'latin1');
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

export type IdGenerator = () => string;

export function createIdGenerator(clock: Pick<Clock, 'now'>, random: (n: number) => Buffer = randomBytes): IdGenerator {
  let pool: Buffer = Buffer.alloc(0);
  let used = 0;
  let lastTime = -1;
  /** The random part of the last id, one base32 digit (0–31) each. */
  const digits = new Uint8Array(RANDOM_CHARS);
  const out = Buffer.alloc(TIME_CHARS + RANDOM_CHARS);
  const draw = (): void => {
    for (let i = 0; i < RANDOM_CHARS; i++) {
      if (used >= pool.length) {
        pool = random(POOL_BYTES);
        used = 0;
      }
      digits[i] = pool[used++]! >> 3;
    }
  };
  /** The next random part within the same millisecond; false when it cannot grow (all digits 31). */
  const increment = (): boolean => {
    for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
      if (digits[i]! < 31) {
        digits[i]!++;
        return true;
      }
      digits[i] = 0;
    }
    return false;
  };
  return () => {
    // The clock's time is at least 1 ms.
    const now = Math.max(1, Math.floor(clock.now()));
    if (now > lastTime) {
      lastTime = now;
      draw();
    } else if (!increment()) {
      // 2^80 ids in one millisecond: the next millisecond's.
      lastTime++;
      draw();
    }
    let t = lastTime;
    for (let i = TIME_CHARS - 1; i >= 0; i--) {
      out[i] = ENCODING[t % 32]!;
      t = Math.floor(t / 32);
    }
    for (let i = 0; i < RANDOM_CHARS; i++) out[TIME_CHARS + i] = ENCODING[digits[i]!]!;
    return out.toString('latin1');
  };
}
