import { describe, expect, it } from 'vitest';
import { ChannelNotConfigured, KeyRejected } from '../../../src-main/core/api/errors';
import { runCli } from '../../helpers/cli';
import { fakeClientFactory } from './fake-client';

const KEY = 'test-key-abcdef123456';
const target = ['--base-url', 'http://127.0.0.1:9', '--agent', 'a1'];
const sent = { status: 'sent', messageId: 'm1', to: '+15550102000' };

describe('usage errors: exit 2, usage on stderr, nothing sent', () => {
  const cases: Array<[string, string[]]> = [
    ['unknown option', ['send', ...target, '--to', '+15550102000', '--text', 'hi', '--bogus']],
    ['missing required --to', ['send', ...target, '--text', 'hi']],
    ['option missing its value', ['send', ...target, '--text', 'hi', '--to']],
    ['garbage recipient', ['send', ...target, '--to', 'not-a-number', '--text', 'hi']],
    ['recipient too short', ['send', ...target, '--to', '+123', '--text', 'hi']],
    ['nothing to send', ['send', ...target, '--to', '+15550102000']],
    [
      'image and document',
      [
        'send',
        ...target,
        '--to',
        '+15550102000',
        '--image-url',
        'https://x.test/a.png',
        '--document-url',
        'https://x.test/a.pdf',
      ],
    ],
    ['non-http media URL', ['send', ...target, '--to', '+15550102000', '--image-url', 'file:///etc/passwd']],
    ['bad retries', ['send', ...target, '--to', '+15550102000', '--text', 'hi', '--retries', 'many']],
    ['bad base url', ['send', '--base-url', 'ftp://x', '--agent', 'a1', '--to', '+15550102000', '--text', 'hi']],
    ['missing base url', ['send', '--agent', 'a1', '--to', '+15550102000', '--text', 'hi']],
    ['missing agent', ['status', '--base-url', 'http://127.0.0.1:9']],
    ['bad on/off', ['settings', ...target, '--groups', 'maybe']],
    ['bad api key env name', ['status', ...target, '--api-key-env', 'NOT A NAME']],
    ['unknown command', ['frobnicate']],
    ['no command', []],
    ['excess argument', ['status', ...target, 'extra']],
    ['bad phone for check', ['check', ...target, '--phone', '12ab']],
    ['pair timeout not a number', ['pair', ...target, '--timeout', 'soon']],
    ['emulator port out of range', ['emulator', '--port', '70000']],
    ['unknown emulator dialect', ['emulator', '--dialect', 'openai-stream,nope']],
    ['serve --dialect without --emulator', ['serve', '--dialect', 'openai-stream']],
    ['key in clear to another machine', ['status', '--base-url', 'http://10.0.0.8:8787', '--agent', 'a1']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const { factory, log } = fakeClientFactory({ send: async () => sent, getSession: async () => ({}) });
      const r = await runCli(args, { env: { CHANNEL_API_KEY: KEY }, createClient: factory });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Usage: channel-companion|\(see: channel-companion .*--help\)/);
      expect(r.stdout).toBe('');
      expect(log.calls).toEqual([]);
    });
  }

  it('a missing key is a clear usage error naming the variable', async () => {
    const { factory, log } = fakeClientFactory({ send: async () => sent });
    const r = await runCli(['send', ...target, '--to', '+15550102000', '--text', 'hi', '--api-key-env', 'MY_KEY'], {
      env: {},
      createClient: factory,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('MY_KEY');
    expect(r.stderr).toContain('never accepted as a flag');
    expect(log.created).toEqual([]);
  });

  it('the key is never accepted as a flag, and a value given to such a flag is not echoed', async () => {
    const { factory, log } = fakeClientFactory({ send: async () => sent });
    const r = await runCli(['send', ...target, '--to', '+15550102000', '--text', 'hi', `--api-key=${KEY}`], {
      env: {},
      createClient: factory,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--api-key=…'");
    expect(r.stderr).not.toContain(KEY);
    expect(log.calls).toEqual([]);
  });

  it('--help exits 0 with the usage on stdout', async () => {
    const r = await runCli(['send', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--to <number>');
  });
});

describe('service commands with a fake client', () => {
  it('send reads the key from the named env var, normalises the recipient, prints the result', async () => {
    const { factory, log } = fakeClientFactory({ send: async () => sent });
    const r = await runCli(
      ['send', ...target, '--to', '+1 (555) 010-2000', '--text', 'hi', '--api-key-env', 'OTHER_KEY'],
      {
        env: { OTHER_KEY: KEY },
        createClient: factory,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('sent m1 to +15550102000\n');
    expect(log.created[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY });
    expect(log.calls[0]!.method).toBe('send');
    expect(log.calls[0]!.args.slice(0, 2)).toEqual(['a1', { to: '+15550102000', text: 'hi' }]);
    expect(log.closed).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('--json prints exactly one JSON object per line', async () => {
    const { factory } = fakeClientFactory({ send: async () => sent });
    const r = await runCli(['send', ...target, '--to', '+15550102000', '--text', 'hi', '--json'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
    });
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([sent]);
  });

  it('409 → exit 3 with "needs a QR scan"; 401 → exit 4; the key never appears', async () => {
    const notConfigured = fakeClientFactory({
      send: async () => {
        throw new ChannelNotConfigured();
      },
    });
    const r1 = await runCli(['send', ...target, '--to', '+15550102000', '--text', 'hi'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: notConfigured.factory,
    });
    expect(r1.code).toBe(3);
    expect(r1.stderr).toContain('needs a QR scan');

    const unauthorized = fakeClientFactory({
      getSession: async () => {
        throw new KeyRejected();
      },
    });
    const r2 = await runCli(['status', ...target, '--json'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: unauthorized.factory,
    });
    expect(r2.code).toBe(4);
    expect(r2.stdout).toBe('');
    const err = JSON.parse(r2.stderr.trim()) as { error: { kind: string; exitCode: number } };
    expect(err.error).toMatchObject({ kind: 'key-rejected', exitCode: 4 });
    expect(r2.stderr).not.toContain(KEY);
  });

  it('a target resolver (the --team hook) can supply base URL and key; flags still win', async () => {
    const { factory, log } = fakeClientFactory({
      getSession: async () => ({
        connected: true,
        linked: true,
        state: 'connected',
        needsScan: false,
        phone: '1555',
        qr: null,
      }),
    });
    const resolver = async () => ({
      baseUrl: 'http://127.0.0.1:7',
      apiKey: 'from-keychain-key',
      keySource: 'keychain',
    });
    const r = await runCli(['status', '--agent', 'a1'], {
      env: {},
      createClient: factory,
      targetResolvers: [resolver],
    });
    expect(r.code).toBe(0);
    expect(log.created[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:7', apiKey: 'from-keychain-key' });
    expect(r.stdout).toContain('a1: Connected');

    const r2 = await runCli(['status', '--agent', 'a1', '--base-url', 'http://127.0.0.1:8'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
      targetResolvers: [resolver],
    });
    expect(r2.code).toBe(0);
    expect(log.created[1]).toMatchObject({ baseUrl: 'http://127.0.0.1:8', apiKey: KEY });
  });

  it('a usage error prints the whole help at a terminal, one line pointing at it elsewhere', async () => {
    const args = ['status', ...target, '--api-key-env', 'NOT A NAME'];
    const piped = await runCli(args, { env: { CHANNEL_API_KEY: KEY } });
    expect(piped.code).toBe(2);
    expect(piped.stderr).not.toContain('Usage:');
    expect(piped.stderr).toContain('(see: channel-companion status --help)');
    expect(piped.stderr.trim().split('\n')).toHaveLength(2);
    const tty = await runCli(args, { env: { CHANNEL_API_KEY: KEY }, stderrIsTTY: true });
    expect(tty.code).toBe(2);
    expect(tty.stderr).toContain('Usage: channel-companion status');
  });
});
