// Sortable delivery ids (ULID-like): 48-bit millisecond time + 80 random bits, Crockford base32.
// Ids made by one generator are strictly increasing, even within one millisecond.
// Plain numbers, no BigInt: the 80 random bits are two 40-bit halves (hi, lo), and random bytes are
// drawn from a pool (this runs once per delivery and per forward attempt).
import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const HALF = 2 ** 40;
const POOL_BYTES = 4096;

/** `chars` base32 digits of a non-negative integer below 2^53. */
function encode(value: number, chars: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < chars; i++) {
    const digit = v % 32;
    out = ALPHABET[digit]! + out;
    v = (v - digit) / 32;
  }
  return out;
}

/** Reads a 40-bit unsigned integer. */
function read40(b: Buffer, at: number): number {
  return b[at]! * 2 ** 32 + b.readUInt32BE(at + 1);
}

export type IdGenerator = () => string;

export function createIdGenerator(clock: Pick<Clock, 'now'>, random: (n: number) => Buffer = randomBytes): IdGenerator {
  let lastTime = -1;
  let hi = 0;
  let lo = 0;
  let pool = Buffer.alloc(0);
  let used = 0;
  // Within one millisecond only `lo` changes: the time and `hi` digits are kept from the last id.
  let prefix = '';
  let prefixTime = -1;
  let prefixHi = -1;
  const tenRandomBytes = (): Buffer => {
    // An injected source is asked for exactly 10 bytes each time (deterministic tests).
    if (random !== randomBytes) return random(10);
    if (used + 10 > pool.length) {
      pool = randomBytes(POOL_BYTES);
      used = 0;
    }
    const b = pool.subarray(used, used + 10);
    used += 10;
    return b;
  };
  return () => {
    let time = Math.max(0, Math.floor(clock.now()));
    if (time <= lastTime) {
      time = lastTime;
      lo++;
      if (lo === HALF) {
        lo = 0;
        hi++;
        if (hi === HALF) {
          hi = 0;
          time = ++lastTime;
        }
      }
    } else {
      const b = tenRandomBytes();
      // The top bit is left clear: headroom for increments within one millisecond.
      hi = Math.floor(read40(b, 0) / 2);
      lo = read40(b, 5);
    }
    lastTime = time;
    if (time !== prefixTime || hi !== prefixHi) {
      prefix = encode(time, 10) + encode(hi, 8);
      prefixTime = time;
      prefixHi = hi;
    }
    return prefix + encode(lo, 8);
  };
}
