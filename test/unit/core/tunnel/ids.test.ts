import { describe, expect, it } from 'vitest';
import { createIdGenerator } from '../../../../src-main/core/tunnel/ids';

/** The millisecond time in an id's first ten digits (Crockford base 32). */
function idTime(id: string): number {
  let v = 0;
  for (const ch of id.slice(0, 10)) v = v * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch);
  return v;
}

describe('createIdGenerator', () => {
  it('gives strictly increasing ids within one millisecond, across a carry into the high half, and after the time moves', () => {
    let now = 1_750_000_000_000;
    // lo starts two below 2^40: the third id of this millisecond carries into hi.
    const bytes = Buffer.from([0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0xfe]);
    const newId = createIdGenerator({ now: () => now }, () => bytes);
    const ids = [newId(), newId(), newId(), newId()];
    now += 1;
    ids.push(newId(), newId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ids.slice(0, 4).map(idTime)).toEqual([now - 1, now - 1, now - 1, now - 1]);
    expect(ids.slice(4).map(idTime)).toEqual([now, now]);
    // The carry changed the high digits (the cached prefix must follow it).
    expect(ids[2]!.slice(10, 18)).not.toBe(ids[1]!.slice(10, 18));
  });
});
