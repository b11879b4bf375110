// The exposure's status: off → starting → up / failed → stopped, as events; one exposure at a time;
// the ngrok authtoken from the keychain (or why not).
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../../src-main/core/secrets';
import {
  ExposureController,
  ngrokAuthtokenHint,
  readNgrokAuthtoken,
  saveNgrokAuthtoken,
  deleteNgrokAuthtoken,
  type ExposureStatus,
} from '../../../../src-main/core/expose';
import { fakeTunnelCommand, NO_NETWORK_ADDRESS } from '../../../helpers/fake-tunnel';
import type { NgrokLoader } from '../../../../src-main/core/expose/ngrok';

type NgrokModule = Awaited<ReturnType<NgrokLoader>>;
type NgrokListener = Awaited<ReturnType<NgrokModule['forward']>>;

/** The keychain account the ngrok authtoken is kept under. */
const NGROK_AUTHTOKEN_ACCOUNT = 'ngrok:authtoken';

const TOKEN = '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH';
const ci = !!process.env.CI && process.env.CI !== 'false';

function ngrokStub(urls: string[]): { load: () => Promise<NgrokModule>; closed: string[]; configs: unknown[] } {
  const closed: string[] = [];
  const configs: unknown[] = [];
  let i = 0;
  return {
    closed,
    configs,
    load: async () => ({
      forward: async (cfg) => {
        configs.push(cfg);
        const url = urls[i++] ?? 'https://x.ngrok.app';
        const l: NgrokListener = { url: () => url, close: async () => void closed.push(url) };
        return l;
      },
    }),
  };
}

let controllers: ExposureController[] = [];
afterEach(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  controllers = [];
});

function controller(store: MemorySecretStore, load?: () => Promise<NgrokModule>, timeoutMs?: number) {
  const c = new ExposureController({
    ngrokAuthtoken: () => readNgrokAuthtoken(store),
    ...(load ? { loadNgrok: load } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  controllers.push(c);
  const seen: ExposureStatus[] = [];
  c.on('status', (s) => seen.push(s));
  return { c, seen, states: () => seen.map((s) => s.state) };
}

describe('ExposureController with ngrok (stubbed)', () => {
  it('starting → up with the URL, then stopped keeping the URL; the authtoken comes from the store', async () => {
    const store = new MemorySecretStore();
    await saveNgrokAuthtoken(store, TOKEN);
    const ng = ngrokStub(['https://one.ngrok.app']);
    const { c, seen, states } = controller(store, ng.load);
    expect(c.status()).toMatchObject({ state: 'off', url: null, kind: null });
    const up = await c.start(4100, { kind: 'ngrok' });
    expect(up).toMatchObject({ state: 'up', kind: 'ngrok', url: 'https://one.ngrok.app', error: null });
    expect(ng.configs).toEqual([{ addr: '127.0.0.1:4100', authtoken: TOKEN }]);
    const stopped = await c.stop();
    expect(stopped).toMatchObject({ state: 'stopped', url: 'https://one.ngrok.app', error: null });
    expect(ng.closed).toEqual(['https://one.ngrok.app']);
    expect(states()).toEqual(['starting', 'up', 'stopped']);
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
  });

  it('starting again stops the exposure before', async () => {
    const store = new MemorySecretStore();
    await saveNgrokAuthtoken(store, TOKEN);
    const ng = ngrokStub(['https://one.ngrok.app', 'https://two.ngrok.app']);
    const { c } = controller(store, ng.load);
    await c.start(1, { kind: 'ngrok' });
    expect((await c.start(1, { kind: 'ngrok' })).url).toBe('https://two.ngrok.app');
    expect(ng.closed).toEqual(['https://one.ngrok.app']);
  });

  it('no authtoken stored: failed, saying how to store one', async () => {
    const { c, states } = controller(new MemorySecretStore(), ngrokStub([]).load);
    const s = await c.start(1, { kind: 'ngrok' });
    expect(s.state).toBe('failed');
    expect(s.error).toMatchObject({ code: 'no-authtoken', message: 'no ngrok authtoken is stored' });
    expect(s.error!.hint).toContain('channel-companion secret set ngrok-authtoken');
    expect(states()).toEqual(['starting', 'failed']);
    // Nothing runs: stop() changes nothing.
    expect((await c.stop()).state).toBe('failed');
  });

  it('a keychain that cannot answer is reported as such', async () => {
    const store = new MemorySecretStore();
    store.get = async () => {
      throw new Error('the keychain is locked');
    };
    const { c } = controller(store, ngrokStub([]).load);
    expect((await c.start(1, { kind: 'ngrok' })).error).toMatchObject({ code: 'keychain' });
  });

  it('stop() while starting abandons the start', async () => {
    const store = new MemorySecretStore();
    await saveNgrokAuthtoken(store, TOKEN);
    const never: () => Promise<NgrokModule> = async () => ({ forward: () => new Promise(() => undefined) });
    const { c, states } = controller(store, never);
    const starting = c.start(1, { kind: 'ngrok' });
    await new Promise((r) => setTimeout(r, 20));
    expect(c.status().state).toBe('starting');
    await c.stop();
    await starting;
    expect(c.status().state).toBe('stopped');
    expect(states()).toEqual(['starting', 'stopped']);
  });
});

describe.skipIf(!ci && NO_NETWORK_ADDRESS !== null)('ExposureController with a command', () => {
  it('up, then failed with why when the program exits by itself; the URL is kept', async () => {
    const { c, states } = controller(new MemorySecretStore());
    const up = await c.start(9, { kind: 'command', command: fakeTunnelCommand(['--exit-after', '200']) });
    expect(up.state).toBe('up');
    await expect.poll(() => c.status().state).toBe('failed');
    expect(c.status().url).toBe(up.url);
    expect(c.status().error?.code).toBe('exited');
    expect(states()).toEqual(['starting', 'up', 'failed']);
  });

  it('a bad command fails at once', async () => {
    const { c } = controller(new MemorySecretStore());
    expect((await c.start(9, { kind: 'command', command: 'cloudflared tunnel' })).error?.code).toBe('bad-command');
  });
});

describe('the ngrok authtoken in the store', () => {
  it('is saved under its account, shown only as a hint, and deleted', async () => {
    const store = new MemorySecretStore();
    expect(await ngrokAuthtokenHint(store)).toBeNull();
    expect(await saveNgrokAuthtoken(store, `  ${TOKEN}\n`)).toEqual({ hint: '…EFGH' });
    expect(await store.get(NGROK_AUTHTOKEN_ACCOUNT)).toBe(TOKEN);
    expect(await ngrokAuthtokenHint(store)).toBe('…EFGH');
    expect(await deleteNgrokAuthtoken(store)).toBe(true);
    await expect(readNgrokAuthtoken(store)).rejects.toMatchObject({ code: 'no-authtoken' });
  });

  it.each(['short', 'has spaces in the middle of it 0123456789', 'x'.repeat(600)])('refuses %j', async (bad) => {
    await expect(saveNgrokAuthtoken(new MemorySecretStore(), bad)).rejects.toThrow(/authtoken/);
  });
});
