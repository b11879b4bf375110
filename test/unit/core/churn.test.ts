import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ChurnMap, ChurnSet } from '../../../src-main/core/churn';

describe('ChurnMap', () => {
  it('keeps what is set until it is deleted, through many deletes that move the live entries to a new Map', () => {
    const m = new ChurnMap<string, number>();
    m.set('kept-a', 1);
    m.set('kept-b', 2);
    for (let i = 0; i < 5_000; i++) {
      m.set(`x${i}`, i);
      expect(m.get(`x${i}`)).toBe(i);
      if (i >= 3) expect(m.delete(`x${i - 3}`)).toBe(true);
    }
    for (const [k, v] of [
      ['kept-a', 1],
      ['kept-b', 2],
      ['x4997', 4997],
      ['x4998', 4998],
      ['x4999', 4999],
    ] as const)
      expect(m.get(k)).toBe(v);
    expect(m.has('x4999')).toBe(true);
    expect(m.has('x10')).toBe(false);
    expect(m.get('x10')).toBeUndefined();
    expect(m.delete('x10')).toBe(false);
    m.set('kept-a', 10);
    expect(m.get('kept-a')).toBe(10);
  });

  it('a key deleted and set again is there once more, and a delete of it counts', () => {
    const m = new ChurnMap<string, string>();
    m.set('a', 'one');
    m.delete('a');
    m.set('a', 'two');
    expect(m.get('a')).toBe('two');
    expect(m.delete('a')).toBe(true);
    expect(m.delete('a')).toBe(false);
  });
});

describe('ChurnSet', () => {
  it('takes objects, each once, and hands out a copy of its members', () => {
    const a = { n: 1 };
    const b = { n: 2 };
    const s = new ChurnSet<object>();
    s.add(a);
    s.add(a);
    s.add(b);
    expect(s.size).toBe(2);
    const members = s.values();
    s.delete(a);
    expect(members).toEqual([a, b]);
    expect(s.values()).toEqual([b]);
    expect(s.delete(a)).toBe(false);
    expect(s.size).toBe(1);
    s.clear();
    expect(s.size).toBe(0);
  });
});

describe('what an entry that left keeps alive', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o?: { type: 'minor' | 'major' }) => void;
  const oldBytes = () =>
    getHeapSpaceStatistics()
      .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
      .reduce((sum, s) => sum + s.space_used_size, 0);

  /** Old-generation growth while 20,000 entries of about 300 bytes pass through, 4 at a time. */
  const churnThrough = (m: { set(k: string, v: object): void; delete(k: string): boolean }): number => {
    for (let i = 0; i < 8; i++) m.set(`k${i}`, { i });
    gc();
    gc(); // the map and its table are in the old generation now, as in a receiver that runs for hours
    const before = oldBytes();
    for (let i = 0; i < 20_000; i++) {
      m.set(`d${i}`, { payload: new Array(32).fill(i) });
      if (i >= 4) m.delete(`d${i - 4}`);
      if (i % 500 === 0) gc({ type: 'minor' });
    }
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    return oldBytes() - before;
  };

  it('a ChurnMap in the old generation lets its deleted entries die young; a Map does not', () => {
    const churn = churnThrough(new ChurnMap<string, object>());
    const map = churnThrough(new Map<string, object>());
    // What passed through is about 6 MB: a Map's outgrown tables promote half of it.
    expect(map).toBeGreaterThan(2 * 1024 * 1024);
    expect(churn).toBeLessThan(1024 * 1024);
    expect(churn * 3).toBeLessThan(map);
  });
});
