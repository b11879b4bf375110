import { afterEach, describe, expect, it } from 'vitest';
import { SendBudget } from '../../../../src-main/core/api/budget';
import { Aborted } from '../../../../src-main/core/api/errors';
import { FakeClock, flush } from '../../../helpers/fake-clock';
import { setup } from './mock';

const PATH = '/api/v1/agents/agent-1/whatsapp/messages';
let env: ReturnType<typeof setup> | undefined;
afterEach(async () => {
  await env?.agent.close();
  env = undefined;
});

describe('client send budget', () => {
  it('queues the 61st send in a minute and sends it when the window slides', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: PATH })
      .reply(200, { status: 'sent', messageId: 'm', to: 'x' })
      .times(61);
    const results: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      results.push(env.client.send('agent-1', { to: '+15550102000', text: `n${i}` }));
      await env.clock.advance(100); // 60 sends over 6 s
    }
    await Promise.all(results);
    expect(env.client.sendBudget()).toMatchObject({ limit: 60, windowMs: 60_000, used: 60, queued: [] });

    const queued: Array<{ id: string; position: number; waitMs: number }> = [];
    let done = false;
    const last = env.client
      .send('agent-1', { to: '+15550102000', text: 'n60' }, { onQueued: (q) => queued.push(q) })
      .then((r) => {
        done = true;
        return r;
      });
    await flush();
    // Sends went out at t0, t0+100 … t0+5 900; now is t0+6 000 → the oldest slot frees 54 s from now,
    // plus the 1 s transit margin (the service's window starts when the send arrives).
    expect(queued).toEqual([{ id: expect.any(String), position: 1, waitMs: 60_000 - 6_000 + 1_000 }]);
    const snap = env.client.sendBudget();
    expect(snap.queued).toHaveLength(1);
    // onQueued names the queued send by the id cancelQueued takes.
    expect(snap.queued[0]?.id).toBe(queued[0]?.id);
    expect(snap.queued[0]).toMatchObject({ agentId: 'agent-1', to: '+15550102000', etaMs: 55_000 });
    await env.clock.advance(54_999);
    expect(done).toBe(false);
    await env.clock.advance(1);
    expect(done).toBe(true);
    expect(await last).toMatchObject({ status: 'sent' });
    expect(env.client.sendBudget().queued).toHaveLength(0);
  });

  it('cancelQueued rejects that send with Aborted and leaves others queued', async () => {
    env = setup({ sendBudget: { limit: 1, windowMs: 10_000, marginMs: 0 } });
    env.pool.intercept({ method: 'POST', path: PATH }).reply(200, { status: 'sent', messageId: 'm', to: 'x' }).times(3);
    await env.client.send('agent-1', { to: '+15550102000', text: 'a' });
    const b = env.client.send('agent-1', { to: '+15550102001', text: 'b' }).catch((e) => e);
    const c = env.client.send('agent-1', { to: '+15550102002', text: 'c' });
    await flush();
    const snap = env.client.sendBudget();
    expect(snap.queued.map((q) => [q.to, q.etaMs])).toEqual([
      ['+15550102001', 10_000],
      ['+15550102002', 20_000],
    ]);
    expect(env.client.cancelQueued(snap.queued[0]!.id)).toBe(true);
    expect(env.client.cancelQueued(snap.queued[0]!.id)).toBe(false);
    expect(await b).toBeInstanceOf(Aborted);
    expect(env.client.sendBudget().queued.map((q) => [q.to, q.etaMs])).toEqual([['+15550102002', 10_000]]);
    await env.clock.advance(10_000);
    expect(await c).toMatchObject({ status: 'sent' });
  });

  it('adopts the X-RateLimit-Limit a send answer reports', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: PATH })
      .reply(200, { status: 'sent', messageId: 'm', to: 'x' }, { headers: { 'x-ratelimit-limit': '2' } })
      .times(2);
    await env.client.send('agent-1', { to: '+15550102000', text: 'a' });
    expect(env.client.sendBudget().limit).toBe(2);
    await env.client.send('agent-1', { to: '+15550102000', text: 'b' });
    let queued = false;
    const third = env.client
      .send('agent-1', { to: '+15550102000', text: 'c' }, { onQueued: () => (queued = true) })
      .catch((e) => e);
    await flush();
    expect(queued).toBe(true);
    await env.client.close();
    expect(await third).toBeInstanceOf(Aborted);
  });

  it('a queued send is cancelled by its signal', async () => {
    const clock = new FakeClock();
    let n = 0;
    const budget = new SendBudget({ limit: 1, windowMs: 1000, clock, newId: () => `q${++n}` });
    await budget.acquire({ agentId: 'a', to: 't' });
    const ac = new AbortController();
    const p = budget.acquire({ agentId: 'a', to: 't' }, ac.signal).catch((e) => e);
    expect(budget.snapshot().queued.map((q) => q.id)).toEqual(['q1']);
    ac.abort();
    expect(await p).toBeInstanceOf(Aborted);
    expect(budget.snapshot().queued).toEqual([]);
    expect(clock.pendingDelays()).toEqual([]);
  });

  it('FIFO: waiters leave in order as slots free', async () => {
    const clock = new FakeClock();
    let n = 0;
    const budget = new SendBudget({ limit: 2, windowMs: 1000, marginMs: 0, clock, newId: () => `q${++n}` });
    await budget.acquire({ agentId: 'a', to: '1' });
    await clock.advance(300);
    await budget.acquire({ agentId: 'a', to: '2' });
    const order: string[] = [];
    const ps = ['3', '4', '5'].map((to) => budget.acquire({ agentId: 'a', to }).then(() => order.push(to)));
    expect(budget.snapshot().queued.map((q) => q.etaMs)).toEqual([700, 1000, 1700]);
    await clock.advance(700);
    expect(order).toEqual(['3']);
    await clock.advance(300);
    expect(order).toEqual(['3', '4']);
    await clock.advance(700);
    await Promise.all(ps);
    expect(order).toEqual(['3', '4', '5']);
  });
});
