// Sortable delivery ids (ULID-like): 48-bit millisecond time + 80 random bits, Crockford base32.
// Ids made by one generator are strictly increasing, even within one millisecond.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_MAX = (1n << 80n) - 1n;

function encode(value: bigint, chars: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < chars; i++) {
    out = ALPHABET[Number(v & 31n)]! + out;
    v >>= 5n;
  }
  return out;
}

export type IdGenerator = () => string;

export function createIdGenerator(clock: Pick<Clock, 'now'>, random: (n: number) => Buffer = randomBytes): IdGenerator {
  let lastTime = -1;
  let lastRandom = 0n;
  return () => {
    let time = Math.max(0, Math.floor(clock.now()));
    if (time <= lastTime) {
      time = lastTime;
      lastRandom = lastRandom >= RANDOM_MAX ? 0n : lastRandom + 1n;
      if (lastRandom === 0n) time = ++lastTime;
    } else {
      lastRandom = BigInt(`0x${random(10).toString('hex')}`) >> 1n; // headroom for increments
    }
    lastTime = time;
    return encode(BigInt(time), 10) + encode(lastRandom, 16);
  };
}

/** The millisecond time encoded in an id (for sorting/filtering by receive time). */
export function idTime(id: string): number {
  let v = 0;
  for (const ch of id.slice(0, 10)) v = v * 32 + ALPHABET.indexOf(ch);
  return v;
}
