import { beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, ctl, emulatorSuite, waitFor } from './helpers';

const KEY = 'key-faults-aaaaa';
const SESSION = '/api/v1/agents/a1/whatsapp/session';

describe('emulator: injected faults', () => {
  const rolls: number[] = [];
  let emu: Emulator;
  let api: Api;
  const clock = emulatorSuite(
    KEY,
    {
      random: () => rolls.shift() ?? 0.99,
      seed: {
        teams: [
          {
            id: 't1',
            apiKey: KEY,
            sendsPerMinute: 30,
            agents: [
              { agentId: 'a1', state: 'connected' },
              { agentId: 'a2', state: 'connected' },
            ],
          },
        ],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );
  beforeEach(() => {
    rolls.length = 0;
  });

  it('500 on the next `count` calls matching pathPrefix, then normal', async () => {
    const f = await ctl(emu, 'POST', '/faults', { kind: '500', count: 2, pathPrefix: SESSION });
    expect(f.body).toEqual({ id: expect.any(String) });
    expect((await api.session('a2')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await api.session('a1');
      expect(r.status).toBe(500);
      expect(r.body.error.code).toBe('INTERNAL_ERROR');
      expect(r.headers.get('x-ratelimit-limit')).toBe('30');
    }
    expect((await api.session('a1')).status).toBe(200);
  });

  it('503 SERVICE_UNAVAILABLE and 429 with Retry-After; default count is one call', async () => {
    await ctl(emu, 'POST', '/faults', { kind: '503' });
    const a = await api.session('a1');
    expect(a.status).toBe(503);
    expect(a.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await api.session('a1')).status).toBe(200);
    await ctl(emu, 'POST', '/faults', { kind: '429', retryAfterSeconds: 7 });
    const b = await api.send('a1', { to: '+15551234567', text: 'x' });
    expect(b.status).toBe(429);
    expect(b.body.error.code).toBe('RATE_LIMITED');
    expect(b.headers.get('retry-after')).toBe('7');
    expect(b.headers.get('x-ratelimit-limit')).toBe('30');
  });

  it('slow answers after delayMs of the clock, then normally', async () => {
    await ctl(emu, 'POST', '/faults', { kind: 'slow', delayMs: 5000 });
    let settled = false;
    const pending = api.session('a1').then((r) => ((settled = true), r));
    await waitFor(() => clock.pendingDelays().includes(5000));
    await clock.advance(4999);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect((await pending).status).toBe(200);
  });

  it('reset destroys the connection', async () => {
    await ctl(emu, 'POST', '/faults', { kind: 'reset' });
    await expect(api.session('a1')).rejects.toThrow();
    expect((await api.session('a1')).status).toBe(200);
  });

  it('probability uses the injected random; durationMs bounds the fault', async () => {
    await ctl(emu, 'POST', '/faults', { kind: '500', probability: 0.5, durationMs: 10_000 });
    rolls.push(0.9, 0.1, 0.7, 0.2);
    expect((await api.session('a1')).status).toBe(200);
    expect((await api.session('a1')).status).toBe(500);
    expect((await api.session('a1')).status).toBe(200);
    expect((await api.session('a1')).status).toBe(500);
    await clock.advance(10_000);
    rolls.push(0.0);
    expect((await api.session('a1')).status).toBe(200);
    expect((await emu.control.state()).faults).toHaveLength(0);
  });

  it('faults never touch the control surface; DELETE clears them; bad input → 400', async () => {
    await ctl(emu, 'POST', '/faults', { kind: '500', durationMs: 60_000 });
    expect((await ctl(emu, 'GET', '/state')).status).toBe(200);
    expect((await api.session('a1')).status).toBe(500);
    expect((await ctl(emu, 'DELETE', '/faults')).status).toBe(200);
    expect((await api.session('a1')).status).toBe(200);
    for (const bad of [
      { kind: 'boom' },
      { kind: '500', count: 0 },
      { kind: '500', probability: 2 },
      { kind: '500', pathPrefix: 'api' },
    ]) {
      const r = await ctl(emu, 'POST', '/faults', bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
  });
});
