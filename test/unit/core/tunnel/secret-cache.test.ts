// The receiver's signing secrets: read from their keeper at most once a second per agent while they
// verify, read afresh on request, one read shared by the look-ups made while it runs, a failed
// read never kept.
import { describe, expect, it } from 'vitest';
import { SecretCache } from '../../../../src-main/core/tunnel/secret-cache';
import { FakeClock } from '../../../helpers/fake-clock';

function keeper(now: string[]) {
  const k = { now, reads: [] as string[], fail: false };
  const read = async (agentId: string) => {
    k.reads.push(agentId);
    if (k.fail) throw new Error('keychain locked');
    return k.now;
  };
  return { k, read };
}

describe('SecretCache', () => {
  it('reads an agent once within a second; again after it, and afresh on request', async () => {
    const clock = new FakeClock(1_000_000);
    const { k, read } = keeper(['whsec_a']);
    const c = new SecretCache(read, clock);
    expect(c.peek('a1')).toBeUndefined();
    expect(await c.get('a1')).toEqual(['whsec_a']);
    expect(await c.get('a1')).toEqual(['whsec_a']);
    expect(c.peek('a1')).toEqual(['whsec_a']);
    expect(k.reads).toEqual(['a1']);
    k.now = ['whsec_b', 'whsec_a'];
    expect(await c.get('a1', true)).toEqual(['whsec_b', 'whsec_a']);
    expect(k.reads).toEqual(['a1', 'a1']);
    await clock.advance(999);
    expect(c.peek('a1')).toEqual(['whsec_b', 'whsec_a']);
    await clock.advance(1);
    expect(c.peek('a1')).toBeUndefined();
    await c.get('a1');
    expect(k.reads).toEqual(['a1', 'a1', 'a1']);
  });

  it('look-ups made during a read share it; a fresh one reads again', async () => {
    const clock = new FakeClock(0);
    const { k, read } = keeper(['whsec_a']);
    const c = new SecretCache(read, clock);
    const [x, y] = await Promise.all([c.get('a1'), c.get('a1')]);
    expect(x).toEqual(['whsec_a']);
    expect(y).toEqual(['whsec_a']);
    expect(k.reads).toEqual(['a1']);
    await clock.advance(1_000);
    await Promise.all([c.get('a1'), c.get('a1', true)]);
    expect(k.reads).toEqual(['a1', 'a1', 'a1']);
  });

  it('a failed read is not kept, empty secrets are dropped, a second later they are read again', async () => {
    const clock = new FakeClock(0);
    const { k, read } = keeper(['', 'whsec_a']);
    const c = new SecretCache(read, clock);
    k.fail = true;
    await expect(c.get('a1')).rejects.toThrow('keychain locked');
    expect(c.peek('a1')).toBeUndefined();
    k.fail = false;
    expect(await c.get('a1')).toEqual(['whsec_a']);
    await clock.advance(1_000);
    expect(c.peek('a1')).toBeUndefined();
    await c.get('a1');
    expect(k.reads).toEqual(['a1', 'a1', 'a1']);
  });
});
