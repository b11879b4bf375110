import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../../src-main/core/deadlines';
import { FakeClock } from '../../helpers/fake-clock';

describe('Deadlines: many timeouts on one timer', () => {
  it('fires each deadline at its own time, in due order, whatever order they were added in', async () => {
    const clock = new FakeClock();
    const d = new Deadlines(clock);
    const fired: Array<[string, number]> = [];
    const t0 = clock.now();
    const fire = (name: string) => fired.push([name, clock.now() - t0]);
    d.add(300, fire, 'c');
    d.add(100, fire, 'a');
    d.add(200, fire, 'b');
    d.add(100, fire, 'a2');
    expect(clock.pending).toBe(1);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual([
      ['a', 100],
      ['a2', 100],
    ]);
    await clock.advance(300);
    expect(fired.map(([n]) => n)).toEqual(['a', 'a2', 'b', 'c']);
    expect(fired[2]).toEqual(['b', 200]);
    expect(fired[3]).toEqual(['c', 300]);
    expect(d.pending).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('a cancelled deadline never fires; the timer goes when none is pending', async () => {
    const clock = new FakeClock();
    const d = new Deadlines(clock);
    const fired: string[] = [];
    const a = d.add(100, (s: string) => fired.push(s), 'a');
    const b = d.add(200, (s: string) => fired.push(s), 'b');
    a.cancel();
    a.cancel();
    expect(d.pending).toBe(1);
    await clock.advance(150);
    expect(fired).toEqual([]);
    // Only the live deadline keeps a timer, set for its own time.
    expect(clock.pendingDelays()).toEqual([50]);
    b.cancel();
    expect(d.pending).toBe(0);
    expect(clock.pending).toBe(0);
    await clock.advance(1000);
    expect(fired).toEqual([]);
  });

  it('a deadline added from a firing one, or sooner than the armed one, still fires on time', async () => {
    const clock = new FakeClock();
    const d = new Deadlines(clock);
    const t0 = clock.now();
    const fired: Array<[string, number]> = [];
    const fire = (s: string) => fired.push([s, clock.now() - t0]);
    d.add(
      100,
      (s: string) => {
        fire(s);
        d.add(0, fire, 'now');
        d.add(50, fire, 'later');
      },
      'first',
    );
    d.add(500, fire, 'last');
    d.add(10, fire, 'sooner');
    await clock.advance(1000);
    expect(fired).toEqual([
      ['sooner', 10],
      ['first', 100],
      ['now', 100],
      ['later', 150],
      ['last', 500],
    ]);
    expect(clock.pending).toBe(0);
  });
});
