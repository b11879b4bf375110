// The duplicate index: a key is claimed once per agent within the window; another agent's same key
// is its own; keys leave when the window passes (every agent's), or when released; repeats counted.
import { describe, expect, it } from 'vitest';
import { SeenIndex } from '../../../../src-main/core/tunnel/seen';

describe('SeenIndex', () => {
  it('one claim per agent and key within the window; repeats counted; release frees the key', () => {
    const s = new SeenIndex(60_000);
    expect(s.claim('a1', 'm1', 1_000)).toBe(true);
    expect(s.claim('a2', 'm1', 1_000)).toBe(true);
    expect(s.claim('a1', 'm1', 2_000)).toBe(false);
    expect(s.claim('a1', 'm1', 3_000)).toBe(false);
    expect(s.repeats('a1', 'm1')).toBe(2);
    expect(s.repeats('a2', 'm1')).toBe(0);
    expect(s.size).toBe(2);
    s.release('a1', 'm1');
    expect(s.has('a1', 'm1')).toBe(false);
    expect(s.repeats('a1', 'm1')).toBe(0);
    expect(s.claim('a1', 'm1', 4_000)).toBe(true);
  });

  it("the window passes for every agent's keys, oldest first", () => {
    const s = new SeenIndex(10_000);
    s.claim('a1', 'old', 0);
    s.claim('a2', 'old', 5_000);
    s.claim('a1', 'new', 9_000);
    s.claim('a3', 'x', 10_500);
    expect(s.size).toBe(3);
    expect(s.has('a1', 'old')).toBe(false);
    expect(s.has('a2', 'old')).toBe(true);
    s.claim('a3', 'y', 15_500);
    expect(s.has('a2', 'old')).toBe(false);
    expect(s.has('a1', 'new')).toBe(true);
    expect(s.claim('a1', 'old', 16_000)).toBe(true);
  });

  it('rebuilt from records in any order, outside the window left out', () => {
    const s = SeenIndex.rebuild(10_000, 20_000, [
      { agentId: 'a1', key: 'k2', at: 15_000 },
      { agentId: 'a1', key: 'k1', at: 5_000 },
      { agentId: 'a2', key: 'k1', at: 12_000 },
    ]);
    expect(s.has('a1', 'k1')).toBe(false);
    expect(s.has('a1', 'k2')).toBe(true);
    expect(s.has('a2', 'k1')).toBe(true);
    expect(s.claim('a2', 'k1', 20_000)).toBe(false);
  });
});
