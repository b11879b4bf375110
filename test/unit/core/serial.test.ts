import { describe, expect, it } from 'vitest';
import { serial, serialByKey } from '../../../src-main/core/serial';

/** A promise settled from outside. */
function gate<T = void>() {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('serial', () => {
  it('starts each task only when the one before it has settled, in the order given', async () => {
    const run = serial();
    const log: string[] = [];
    const first = gate();
    const a = run(async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
      return 'a';
    });
    const b = run(() => {
      log.push('b');
      return 'b';
    });
    await settle();
    expect(log).toEqual(['a start']);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it("a task's failure goes to its caller only: the next task runs", async () => {
    const run = serial();
    const failed = run(() => Promise.reject(new Error('disk full')));
    const next = run(() => 2);
    await expect(failed).rejects.toThrow('disk full');
    await expect(next).resolves.toBe(2);
  });

  it('idle settles after every task given so far, and does not reject for a failed one', async () => {
    const run = serial();
    const g = gate();
    let done = false;
    void run(() => g.promise).then(() => (done = true));
    void run(() => Promise.reject(new Error('x'))).catch(() => undefined);
    const idle = run.idle();
    await settle();
    expect(done).toBe(false);
    g.open();
    await idle;
    expect(done).toBe(true);
  });
});

describe('serialByKey', () => {
  it('keeps one line per key; keys do not wait for each other', async () => {
    const run = serialByKey<string>();
    const log: string[] = [];
    const slow = gate();
    const a1 = run('a', async () => {
      await slow.promise;
      log.push('a1');
    });
    const a2 = run('a', () => void log.push('a2'));
    const b1 = run('b', () => void log.push('b1'));
    await b1;
    expect(log).toEqual(['b1']);
    slow.open();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
  });

  it('forgets a key that ran empty, and idle waits for every key', async () => {
    const run = serialByKey<number>();
    const g = gate();
    void run(1, () => g.promise);
    void run(2, () => Promise.reject(new Error('x'))).catch(() => undefined);
    expect(run.size).toBe(2);
    const idle = run.idle();
    await settle();
    expect(run.size).toBe(1);
    g.open();
    await idle;
    expect(run.size).toBe(0);
  });
});
