import { describe, expect, it } from 'vitest';
import { RateLimited, ServerError, Timeout, KeyRejected } from '../../../../src-main/core/api/errors';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Poller, type PollCycle, type PollResult, type PollerOptions } from '../../../../src-main/core/monitor/poller';
import { FakeClock, flush } from '../../../helpers/fake-clock';
import { CONNECTED, UNLINKED } from '../../../helpers/session-status';

const RECONNECTING: SessionStatus = {
  connected: false,
  linked: true,
  state: 'reconnecting',
  needsScan: false,
  phone: '15550100001',
  qr: null,
};
const PAIRING: SessionStatus = {
  connected: false,
  linked: false,
  state: 'pairing',
  needsScan: true,
  phone: null,
  qr: 'data:image/png;base64,AAAA',
};

function setup(opts: Partial<PollerOptions> & { agents?: Array<[string, string]> } = {}) {
  const clock = new FakeClock();
  const t0 = clock.now();
  const calls: Array<{ teamId: string; agentId: string; at: number }> = [];
  let answer: (teamId: string, agentId: string, signal: AbortSignal) => Promise<SessionStatus> = async () => CONNECTED;
  const agents = opts.agents ?? [['t1', 'a1']];
  const poller = new Poller({
    targets: () => agents.map(([teamId, agentId]) => ({ teamId, agentId })),
    readSession: (teamId, agentId, signal) => {
      calls.push({ teamId, agentId, at: clock.now() - t0 });
      return answer(teamId, agentId, signal);
    },
    clock,
    random: () => 0, // a draw of 0 takes nothing off: the configured interval exactly
    ...opts,
  });
  const polls: PollResult[] = [];
  const cycles: PollCycle[] = [];
  poller.onPoll((r) => polls.push(r));
  poller.onCycle((c) => cycles.push(c));
  return {
    clock,
    poller,
    calls,
    polls,
    cycles,
    agents,
    answerWith(fn: typeof answer) {
      answer = fn;
    },
    times: (agentId = 'a1') => calls.filter((c) => c.agentId === agentId).map((c) => c.at),
  };
}

describe('Poller: intervals', () => {
  it('polls at once, then every 15 s by default', async () => {
    const h = setup();
    h.poller.start();
    await h.clock.advance(46_000);
    expect(h.times()).toEqual([0, 15_000, 30_000, 45_000]);
    expect(h.polls[0]).toMatchObject({ teamId: 't1', agentId: 'a1', status: CONNECTED, nextPollInMs: 15_000 });
    await h.poller.stop();
  });

  it('polls fast (2 s) while pairing or reconnecting, not while merely unlinked', async () => {
    const h = setup({
      agents: [
        ['t1', 'pair'],
        ['t1', 'rec'],
        ['t1', 'unl'],
      ],
    });
    h.answerWith(async (_t, a) => (a === 'pair' ? PAIRING : a === 'rec' ? RECONNECTING : UNLINKED));
    h.poller.start();
    await h.clock.advance(10_000);
    expect(h.times('pair')).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(h.times('rec')).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(h.times('unl')).toEqual([0]);
    await h.poller.stop();
  });

  it('intervals are configurable', async () => {
    const h = setup({ intervalMs: 1_000, fastIntervalMs: 100, jitter: 0 });
    h.poller.start();
    await h.clock.advance(3_000);
    expect(h.times()).toEqual([0, 1_000, 2_000, 3_000]);
    await h.poller.stop();
  });

  it('jitter only shortens the interval (by up to 10%), so the interval is a ceiling', async () => {
    const values = [0, 0.999999, 0.25, 0.75, 0.1, 0.9];
    let i = 0;
    const h = setup({ random: () => values[i++ % values.length]!, coalesceMs: 0 });
    h.poller.start();
    await h.clock.advance(200_000);
    const t = h.times();
    const gaps = t.slice(1).map((x, k) => x - t[k]!);
    expect(gaps.length).toBeGreaterThan(10);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(13_500);
      expect(g).toBeLessThanOrEqual(15_000);
    }
    expect(Math.min(...gaps)).toBe(13_500);
    expect(Math.max(...gaps)).toBe(15_000);
    await h.poller.stop();
  });
});

describe('Poller: cycles and concurrency', () => {
  it('agents due together form one cycle, emitted when all polls of it have settled', async () => {
    const h = setup({
      agents: [
        ['t1', 'a1'],
        ['t1', 'a2'],
        ['t2', 'a3'],
      ],
    });
    h.answerWith(async (_t, a) => {
      if (a === 'a2') await new Promise((r) => h.clock.setTimeout(() => r(null), 200));
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(100);
    expect(h.polls.map((p) => p.agentId).sort()).toEqual(['a1', 'a3']);
    expect(h.cycles).toEqual([]);
    await h.clock.advance(200);
    expect(h.cycles).toHaveLength(1);
    expect(h.cycles[0]!.results.map((r) => r.agentId).sort()).toEqual(['a1', 'a2', 'a3']);
    // The next cycle still polls all three together (a2 finished 200 ms later but is coalesced).
    await h.clock.advance(15_000);
    expect(h.cycles).toHaveLength(2);
    expect(h.cycles[1]!.results).toHaveLength(3);
    await h.poller.stop();
  });

  it('agents due further apart than coalesceMs (250 ms) are not pulled early into one cycle', async () => {
    const h = setup({
      agents: [
        ['t1', 'a1'],
        ['t1', 'a2'],
      ],
    });
    h.answerWith(async (_t, a) => {
      if (a === 'a2') await new Promise((r) => h.clock.setTimeout(() => r(null), 400));
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(16_000);
    expect(h.times('a1')).toEqual([0, 15_000]);
    expect(h.times('a2')).toEqual([0, 15_400]);
    await h.poller.stop();
  });

  it('caps polls in flight per team (8 by default), independently per team', async () => {
    const agents: Array<[string, string]> = [];
    for (let i = 0; i < 20; i++) agents.push(['big', `b${i}`]);
    for (let i = 0; i < 3; i++) agents.push(['small', `s${i}`]);
    const h = setup({ agents });
    const release: Array<() => void> = [];
    let maxBig = 0;
    h.answerWith(
      () =>
        new Promise<SessionStatus>((resolve) => {
          maxBig = Math.max(maxBig, h.poller.inFlightFor('big'));
          release.push(() => resolve(CONNECTED));
        }),
    );
    h.poller.start();
    await flush();
    expect(h.poller.inFlightFor('big')).toBe(8);
    expect(h.poller.inFlightFor('small')).toBe(3);
    expect(h.calls).toHaveLength(11);
    while (release.length > 0) {
      release.shift()!();
      await flush();
    }
    expect(h.calls).toHaveLength(23);
    expect(maxBig).toBe(8);
    expect(h.cycles).toHaveLength(1);
    expect(h.cycles[0]!.results).toHaveLength(23);
    await h.poller.stop();
  });

  it('new targets are picked up on refresh(); removed ones are dropped (at once on refresh, else within an interval)', async () => {
    const h = setup({
      agents: [
        ['t1', 'a1'],
        ['t1', 'a3'],
      ],
    });
    const removed: string[] = [];
    h.poller.onRemoved((t) => removed.push(t.agentId));
    h.poller.start();
    await h.clock.advance(1_000);
    h.agents.push(['t1', 'a2']);
    h.poller.refresh();
    await h.clock.advance(0);
    expect(h.times('a2')).toEqual([1_000]);
    h.agents.splice(0, 1); // a1, without a refresh
    await h.clock.advance(60_000);
    expect(h.times('a1')).toEqual([0, 15_000]);
    expect(h.poller.dueAt('t1', 'a1')).toBeNull();
    h.agents.splice(0, 1); // a3, with a refresh
    h.poller.refresh();
    const polled = h.times('a3').length;
    await h.clock.advance(60_000);
    expect(h.times('a3')).toHaveLength(polled);
    expect(removed).toEqual(['a1', 'a3']);
    await h.poller.stop();
  });
});

describe('Poller: pollSoon', () => {
  it('polls an idle agent at once instead of at its next interval', async () => {
    const h = setup();
    h.poller.start();
    await h.clock.advance(4_000);
    h.poller.pollSoon('t1', 'a1');
    await h.clock.advance(0);
    expect(h.times()).toEqual([0, 4_000]);
    // and the interval counts from that poll
    await h.clock.advance(15_000);
    expect(h.times()).toEqual([0, 4_000, 19_000]);
    await h.poller.stop();
  });

  it('with a poll in flight (answered before the change), polls again as soon as it settles', async () => {
    const h = setup();
    let release: () => void = () => undefined;
    let answer = PAIRING;
    h.answerWith(() => {
      const seen = answer; // what the service said when the request arrived
      return new Promise((resolve) => (release = () => resolve(seen)));
    });
    h.poller.start();
    await h.clock.advance(0);
    expect(h.times()).toEqual([0]);
    await h.clock.advance(300);
    answer = CONNECTED; // the scan lands while the first poll is still out
    h.poller.pollSoon('t1', 'a1');
    await h.clock.advance(0);
    expect(h.times()).toEqual([0]); // never two polls of one agent at once
    release();
    await h.clock.advance(0);
    expect(h.times()).toEqual([0, 300]);
    expect(h.polls[0]).toMatchObject({ status: PAIRING, nextPollInMs: 0 });
    release();
    await h.clock.advance(0);
    // Just linked: polled fast for a while (fastHoldMs) after the pairing.
    expect(h.polls[1]).toMatchObject({ status: CONNECTED, nextPollInMs: 2_000 });
    await h.poller.stop();
  });

  it('ignores an agent it does not watch', async () => {
    const h = setup();
    h.poller.start();
    await h.clock.advance(1_000);
    h.poller.pollSoon('t1', 'nobody');
    await h.clock.advance(0);
    expect(h.calls.map((c) => c.agentId)).toEqual(['a1']);
    await h.poller.stop();
  });
});

describe('Poller: backoff', () => {
  it('retries at the normal pace until unreachable (2 failures), then backs off up to the cap; a success resets it', async () => {
    // a2 answers, so the team is not down: a1's backoff is its own (no team probe).
    const h = setup({
      agents: [
        ['t1', 'a1'],
        ['t1', 'a2'],
      ],
      backoff: { baseMs: 5_000, maxMs: 40_000, jitter: 0.1 },
      coalesceMs: 0,
    });
    let fail = true;
    h.answerWith(async (_t, a) => {
      if (fail && a === 'a1') throw new ServerError({ status: 500 });
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(230_000);
    // 15 s (interval) after the first failure; then max(interval, 5 s, 10 s) = 15 s, 20 s, 40 s, 40 s…
    expect(h.times('a1').slice(0, 8)).toEqual([0, 15_000, 30_000, 45_000, 65_000, 105_000, 145_000, 185_000]);
    fail = false;
    await h.clock.advance(100_000);
    const after = h.times('a1').filter((x) => x > 230_000);
    expect(after[1]! - after[0]!).toBe(15_000);
    await h.poller.stop();
  });

  it('while a whole team backs off, one agent is probed each interval; its first answer brings the whole team back at once', async () => {
    const agents: Array<[string, string]> = [
      ['t1', 'a1'],
      ['t1', 'a2'],
      ['t1', 'a3'],
    ];
    const h = setup({
      agents,
      intervalMs: 2_000,
      fastIntervalMs: 2_000,
      backoff: { baseMs: 5_000, maxMs: 120_000, jitter: 0 },
    });
    let down = false;
    h.answerWith(async () => {
      if (down) throw new TypeError('fetch failed');
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(9_000);
    down = true;
    await h.clock.advance(120_000);
    const during = h.calls.filter((c) => c.at >= 10_000).map((c) => c.at);
    // Every agent fails twice at the normal pace (2 s), then backs off (5 s, 10 s, 20 s… up to
    // 2 min) while the team is probed once per interval: far fewer than 3 polls per 2 s (180).
    expect(during.length).toBeLessThan(110);
    // Never a gap longer than one interval between two polls of the team.
    const gaps = during.slice(1).map((t, k) => t - during[k]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2_000);
    // The service answers again: within one interval every agent has been polled successfully.
    down = false;
    const before = h.polls.length;
    await h.clock.advance(2_000);
    const back = h.polls.slice(before).filter((p) => p.status);
    expect(new Set(back.map((p) => p.agentId))).toEqual(new Set(['a1', 'a2', 'a3']));
    await h.poller.stop();
  });

  it('keeps polling fast for a while after a reconnect (fastHoldMs), then back to the interval', async () => {
    const h = setup({ fastHoldMs: 10_000 });
    let status = RECONNECTING;
    h.answerWith(async () => status);
    h.poller.start();
    await h.clock.advance(4_000);
    status = CONNECTED;
    await h.clock.advance(40_000);
    // Reconnecting at 0, 2, 4 s; connected from 6 s: fast until 14 s (10 s after the last reconnecting poll), then 15 s.
    expect(h.times()).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000, 14_000, 29_000, 44_000]);
    await h.poller.stop();
  });

  it('a drop seen by one poll only (connected again at the next) is followed by fast polls for fastHoldMs', async () => {
    const h = setup();
    let status = CONNECTED;
    h.answerWith(async () => status);
    h.poller.start();
    await h.clock.advance(29_000);
    status = RECONNECTING;
    await h.clock.advance(1_000);
    status = CONNECTED;
    await h.clock.advance(50_000);
    expect(h.times()).toEqual([0, 15_000, 30_000, ...Array.from({ length: 15 }, (_, i) => 32_000 + i * 2_000), 75_000]);
    await h.poller.stop();
  });

  it('any reading that is not connected after a connected one polls fast for fastHoldMs: an unlink without a QR too', async () => {
    const h = setup();
    let status = CONNECTED;
    h.answerWith(async () => status);
    h.poller.start();
    await h.clock.advance(29_000);
    status = UNLINKED;
    await h.clock.advance(50_000);
    // Unlinked from 30 s on: fast until 60 s (it never asked for fast polling itself), then the interval.
    expect(h.times()).toEqual([0, 15_000, 30_000, ...Array.from({ length: 15 }, (_, i) => 32_000 + i * 2_000), 75_000]);
    await h.poller.stop();
  });

  it('an agent watched closely is polled at the fast interval all the time; switched off, at the interval again', async () => {
    const targets = [
      { teamId: 't1', agentId: 'close', watchClosely: true },
      { teamId: 't1', agentId: 'normal' },
    ];
    const h = setup({ targets: () => targets });
    h.poller.start();
    await h.clock.advance(10_000);
    expect(h.times('close')).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(h.times('normal')).toEqual([0]);
    targets[0] = { teamId: 't1', agentId: 'close', watchClosely: false };
    h.poller.refresh();
    await h.clock.advance(30_000);
    expect(h.times('close')).toEqual(
      [0, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000, 27_000, 42_000].filter((t) => t <= 40_000),
    );
    // Switched on again: the next poll is pulled in to the fast interval.
    targets[0] = { teamId: 't1', agentId: 'close', watchClosely: true };
    h.poller.refresh();
    await h.clock.advance(4_000);
    expect(h.times('close').filter((t) => t > 40_000)).toEqual([42_000, 44_000]);
    await h.poller.stop();
  });

  it('setConfig applies at once: a shorter interval pulls the next poll in', async () => {
    const h = setup();
    h.poller.start();
    await h.clock.advance(1_000);
    h.poller.setConfig({ intervalMs: 5_000 });
    await h.clock.advance(10_000);
    expect(h.times()).toEqual([0, 6_000, 11_000]);
    expect(h.poller.config().intervalMs).toBe(5_000);
    await h.poller.stop();
  });

  it('honours a 429 Retry-After longer than the backoff', async () => {
    const h = setup();
    let n = 0;
    h.answerWith(async () => {
      if (n++ === 0) throw new RateLimited({ rateLimit: { retryAfter: 42 } });
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(41_999);
    expect(h.times()).toEqual([0]);
    await h.clock.advance(1);
    expect(h.times()).toEqual([0, 42_000]);
    expect(h.polls[0]!.error).toBeInstanceOf(RateLimited);
    expect(h.polls[0]!.nextPollInMs).toBe(42_000);
    await h.poller.stop();
  });

  it('honours X-RateLimit-Reset when there is no Retry-After', async () => {
    const h = setup();
    const resetSec = Math.floor(h.clock.now() / 1000) + 30;
    let n = 0;
    h.answerWith(async () => {
      if (n++ === 0) throw new RateLimited({ rateLimit: { reset: resetSec } });
      return CONNECTED;
    });
    h.poller.start();
    await h.clock.advance(31_000);
    expect(h.times()).toEqual([0, 30_000]);
    await h.poller.stop();
  });

  it('backs off on network errors, but a rejected key keeps the normal pace', async () => {
    const h = setup({
      agents: [
        ['t1', 'net'],
        ['t1', 'ok'],
        ['t2', 'key'],
      ],
      coalesceMs: 0,
    });
    h.answerWith(async (_t, a) => {
      if (a === 'net') throw new TypeError('fetch failed');
      if (a === 'ok') return CONNECTED;
      throw new KeyRejected();
    });
    h.poller.start();
    await h.clock.advance(100_000);
    expect(h.times('net')).toEqual([0, 15_000, 30_000, 45_000, 65_000, 105_000].filter((t) => t <= 100_000));
    expect(h.times('key')).toEqual([0, 15_000, 30_000, 45_000, 60_000, 75_000, 90_000]);
    await h.poller.stop();
  });

  it('a poll with no answer is aborted after the poll timeout and reported as Timeout', async () => {
    const h = setup({ pollTimeoutMs: 3_000 });
    let aborted = false;
    h.answerWith(
      (_t, _a, signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        ),
    );
    h.poller.start();
    await h.clock.advance(3_000);
    expect(aborted).toBe(true);
    expect(h.polls[0]!.error).toBeInstanceOf(Timeout);
    await h.poller.stop();
  });
});

describe('Poller: abort signals', () => {
  it("an agent's polls share one signal until one is aborted; the poll after a timeout gets a fresh one", async () => {
    const h = setup({
      pollTimeoutMs: 3_000,
      agents: [
        ['t1', 'a1'],
        ['t1', 'a2'],
      ],
    });
    const seen: Array<{ agentId: string; signal: AbortSignal }> = [];
    let hang = false;
    h.answerWith((_t, agentId, signal) => {
      seen.push({ agentId, signal });
      if (!hang) return Promise.resolve(CONNECTED);
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    });
    h.poller.start();
    await h.clock.advance(15_000);
    const a1 = seen.filter((s) => s.agentId === 'a1').map((s) => s.signal);
    const a2 = seen.filter((s) => s.agentId === 'a2').map((s) => s.signal);
    expect(a1).toHaveLength(2);
    expect(a1[1]).toBe(a1[0]);
    expect(a2[0]).not.toBe(a1[0]);
    hang = true;
    await h.clock.advance(15_000);
    await h.clock.advance(3_000);
    expect(a1[0]!.aborted).toBe(true);
    hang = false;
    await h.clock.advance(15_000);
    const after = seen.filter((s) => s.agentId === 'a1').at(-1)!.signal;
    expect(after).not.toBe(a1[0]);
    expect(after.aborted).toBe(false);
    expect(
      h.polls
        .filter((p) => p.agentId === 'a1')
        .map((p) => (p.error instanceof Timeout ? 'timeout' : p.status ? 'ok' : 'error')),
    ).toEqual(['ok', 'ok', 'timeout', 'ok']);
    await h.poller.stop();
  });
});

describe('Poller: pause, resume, stop', () => {
  it('pause() starts no new polls; resume() polls what is due at once', async () => {
    const h = setup();
    h.poller.start();
    await h.clock.advance(1_000);
    h.poller.pause();
    expect(h.poller.isPaused).toBe(true);
    await h.clock.advance(60_000);
    expect(h.times()).toEqual([0]);
    h.poller.resume();
    await h.clock.advance(0);
    expect(h.times()).toEqual([0, 61_000]);
    await h.poller.stop();
  });

  it('stop() aborts polls in flight, resolves once they settled, and emits nothing after', async () => {
    const h = setup({
      agents: [
        ['t1', 'a1'],
        ['t1', 'a2'],
      ],
    });
    const signals: AbortSignal[] = [];
    let settled = 0;
    h.answerWith(
      (_t, _a, signal) =>
        new Promise((_, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () =>
            setTimeout(() => {
              settled++;
              reject(new Error('aborted'));
            }, 5),
          );
        }),
    );
    h.poller.start();
    await flush();
    expect(signals).toHaveLength(2);
    await h.poller.stop();
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(settled).toBe(2);
    expect(h.polls).toEqual([]);
    expect(h.cycles).toEqual([]);
    expect(h.clock.pending).toBe(0);
    await h.clock.advance(60_000);
    expect(h.calls).toHaveLength(2);
  });
});
