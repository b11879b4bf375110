import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { createIdGenerator } from '../../../../src-main/core/tunnel/ids';

describe('createIdGenerator', () => {
  it('gives strictly increasing ULIDs of the clock time within one millisecond, after the time moves and when it goes back', () => {
    let now = 1_750_000_000_000;
    // The same random bytes every time: the order comes from the generator, not from chance.
    const newId = createIdGenerator({ now: () => now }, (n) => Buffer.alloc(n, 0xf0));
    const ids = [newId(), newId(), newId()];
    now += 1;
    ids.push(newId(), newId());
    now -= 5;
    ids.push(newId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ids.map(decodeTime)).toEqual([now + 4, now + 4, now + 4, now + 5, now + 5, now + 5]);
  });

  it('draws its random characters from a pool, not one request per character', () => {
    const asked: number[] = [];
    let now = 1;
    const newId = createIdGenerator({ now: () => now++ }, (n) => (asked.push(n), Buffer.alloc(n, 7)));
    for (let i = 0; i < 100; i++) newId();
    expect(asked).toEqual([4096]);
  });
});
