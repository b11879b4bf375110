import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, client, ctl, emulatorSuite } from './helpers';

const KEY = 'key-session-aaaa';
const OTHER = 'key-session-bbbb';

function decodeQr(dataUrl: string): string {
  const png = PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!code) throw new Error('QR not decodable');
  return code.data;
}

describe('emulator: channel session state machine', () => {
  let emu: Emulator;
  let api: Api;
  const clock = emulatorSuite(
    KEY,
    {
      qrRotateMs: 20_000,
      pairingExpiryMs: 120_000,
      seed: {
        teams: [
          {
            id: 't1',
            apiKey: KEY,
            agents: [
              { agentId: 'a1' },
              { agentId: 'live', state: 'connected', phone: '15550001111' },
              {
                agentId: 'flaky',
                state: 'connected',
                phone: '15550002222',
                flaky: { everySeconds: 60, downSeconds: 10 },
              },
            ],
          },
          { id: 't2', apiKey: OTHER, agents: [{ agentId: 'b1' }] },
        ],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );

  it('starts unlinked with the documented shape', async () => {
    const r = await api.session('a1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      state: 'unlinked',
      connected: false,
      linked: false,
      needsScan: true,
      qr: null,
      phone: null,
      live: false,
    });
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('POST session → 202 pairing with a PNG QR that encodes the pairing token; scan connects', async () => {
    const started = await api.startSession('a1');
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      state: 'pairing',
      needsScan: true,
      connected: false,
      linked: false,
      phone: null,
      live: false,
    });
    expect(started.body.qr).toMatch(/^data:image\/png;base64,/);
    const state = await emu.control.state();
    const token = state.agents.find((a) => a.agentId === 'a1')!.pairingToken;
    expect(decodeQr(started.body.qr)).toBe(token);

    const scanned = await ctl(emu, 'POST', '/agents/a1/scan', { phone: '+15550009999', token: token! });
    expect(scanned.status).toBe(200);
    expect(scanned.body).toEqual({
      state: 'connected',
      connected: true,
      linked: true,
      needsScan: false,
      qr: null,
      phone: '15550009999',
      live: true,
    });
    expect((await api.session('a1')).body.state).toBe('connected');
  });

  it('rotates the QR every qrRotateMs, caching it within a rotation, and expires pairing', async () => {
    await api.startSession('a1');
    const first = (await api.session('a1')).body.qr;
    await clock.advance(19_000);
    expect((await api.session('a1')).body.qr).toBe(first);
    const oldToken = emu.control.state().then((s) => s.agents.find((a) => a.agentId === 'a1')!.pairingToken);
    const old = await oldToken;
    await clock.advance(1_000);
    const second = (await api.session('a1')).body.qr;
    expect(second).not.toBe(first);
    expect(decodeQr(second)).not.toBe(old);
    // A stale QR cannot be scanned.
    const stale = await ctl(emu, 'POST', '/agents/a1/scan', { phone: '15550009999', token: old! });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('QR_EXPIRED');
    await clock.advance(100_000);
    expect((await api.session('a1')).body).toMatchObject({ state: 'unlinked', needsScan: true, qr: null });
  });

  it('POST session while connected → 202 with the current status, unchanged', async () => {
    const r = await api.startSession('live');
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ state: 'connected', phone: '15550001111', qr: null });
  });

  it('scan when not pairing → 409', async () => {
    const r = await ctl(emu, 'POST', '/agents/a1/scan', { phone: '15550009999' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('NOT_PAIRING');
    expect((await ctl(emu, 'POST', '/agents/a1/scan', { phone: 'abc' })).status).toBe(400);
  });

  it('drop → reconnecting for N seconds, then connected again', async () => {
    const d = await ctl(emu, 'POST', '/agents/live/drop', { seconds: 30 });
    expect(d.body).toEqual({
      state: 'reconnecting',
      connected: false,
      linked: true,
      needsScan: false,
      qr: null,
      phone: '15550001111',
      live: false,
    });
    await clock.advance(29_000);
    expect((await api.session('live')).body.state).toBe('reconnecting');
    await clock.advance(1_000);
    expect((await api.session('live')).body).toMatchObject({ state: 'connected', connected: true, live: true });
    expect((await ctl(emu, 'POST', '/agents/a1/drop', { seconds: 5 })).status).toBe(409);
    expect((await ctl(emu, 'POST', '/agents/live/drop', { seconds: -1 })).status).toBe(400);
  });

  it('unlink → unlinked with needsScan and no phone', async () => {
    const r = await ctl(emu, 'POST', '/agents/live/unlink');
    expect(r.body).toEqual({
      state: 'unlinked',
      connected: false,
      linked: false,
      needsScan: true,
      qr: null,
      phone: null,
      live: false,
    });
    expect((await api.session('live')).body.state).toBe('unlinked');
  });

  it('a flaky agent drops by itself at the end of each cycle', async () => {
    expect((await api.session('flaky')).body.state).toBe('connected');
    await clock.advance(50_000);
    expect((await api.session('flaky')).body.state).toBe('reconnecting');
    await clock.advance(10_000);
    expect((await api.session('flaky')).body.state).toBe('connected');
  });

  it('auth: missing/invalid key → 401; another team or unknown agent → 404; headers on every response', async () => {
    const none = await client(emu, null).session('a1');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(none.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await client(emu, 'nope-nope-nope').session('a1')).status).toBe(401);
    const foreign = await api.session('b1');
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('AGENT_NOT_FOUND');
    expect((await api.session('ghost')).body.error.code).toBe('AGENT_NOT_FOUND');
    expect((await client(emu, OTHER).session('b1')).status).toBe(200);
    const wrongMethod = await api.call('DELETE', '/api/v1/agents/a1/whatsapp/session');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('x-ratelimit-limit')).toBe('60');
    const unknown = await api.call('GET', '/api/v1/agents/a1/whatsapp/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-ratelimit-limit')).toBe('60');
  });
});
