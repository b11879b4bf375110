// The receiver's signing secrets: read from their keeper once, then only when told they changed
// (reload, shared by those asking at once) or, in the background, after a refused delivery at most
// once every 5 s; one read shared by the look-ups made while it runs; a failed read never kept, and
// not tried again for 5 s.
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

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('SecretCache', () => {
  it('reads an agent once, however long it is used; again only on reload', async () => {
    const clock = new FakeClock(1_000_000);
    const { k, read } = keeper(['whsec_a']);
    const c = new SecretCache(read, clock);
    expect(c.peek('a1')).toBeUndefined();
    expect(await c.get('a1')).toEqual(['whsec_a']);
    await clock.advance(3_600_000);
    expect(await c.get('a1')).toEqual(['whsec_a']);
    expect(c.peek('a1')).toEqual(['whsec_a']);
    expect(k.reads).toEqual(['a1']);
    k.now = ['whsec_b', 'whsec_a'];
    expect(await c.reload('a1')).toEqual(['whsec_b', 'whsec_a']);
    expect(c.peek('a1')).toEqual(['whsec_b', 'whsec_a']);
    expect(k.reads).toEqual(['a1', 'a1']);
  });

  it('look-ups made during a read share it; reloads asked at once share one read begun after they were asked', async () => {
    const clock = new FakeClock(0);
    const { k, read } = keeper(['whsec_a']);
    const c = new SecretCache(read, clock);
    const [x, y] = await Promise.all([c.get('a1'), c.get('a1')]);
    expect(x).toEqual(['whsec_a']);
    expect(y).toEqual(['whsec_a']);
    expect(k.reads).toEqual(['a1']);
    await clock.advance(10);
    const since = clock.now();
    await Promise.all([c.reload('a1', since), c.reload('a1', since), c.reload('a1', since)]);
    expect(k.reads).toEqual(['a1', 'a1']);
    // Asked again for the same moment: the read done since serves it.
    await c.reload('a1', since);
    expect(k.reads).toEqual(['a1', 'a1']);
  });

  it('a refused delivery reads again in the background at most once every 5 s', async () => {
    const clock = new FakeClock(0);
    const { k, read } = keeper(['whsec_a']);
    const c = new SecretCache(read, clock);
    await c.get('a1');
    for (let i = 0; i < 100; i++) c.refused('a1');
    await settle();
    expect(k.reads).toEqual(['a1']);
    await clock.advance(5_000);
    k.now = ['whsec_b'];
    for (let i = 0; i < 100; i++) c.refused('a1');
    await settle();
    expect(k.reads).toEqual(['a1', 'a1']);
    expect(c.peek('a1')).toEqual(['whsec_b']);
  });

  it('a failed read is not kept (nor tried again for 5 s); empty secrets are dropped; load reads in the background', async () => {
    const clock = new FakeClock(0);
    const { k, read } = keeper(['', 'whsec_a']);
    const c = new SecretCache(read, clock);
    k.fail = true;
    await expect(c.get('a1')).rejects.toThrow('keychain locked');
    expect(c.peek('a1')).toBeUndefined();
    k.fail = false;
    await expect(c.get('a1')).rejects.toThrow('keychain locked');
    expect(k.reads).toEqual(['a1']);
    await clock.advance(5_000);
    expect(await c.get('a1')).toEqual(['whsec_a']);
    c.load('a2');
    c.load('a2');
    await settle();
    expect(c.peek('a2')).toEqual(['whsec_a']);
    expect(k.reads).toEqual(['a1', 'a1', 'a2']);
  });
});
