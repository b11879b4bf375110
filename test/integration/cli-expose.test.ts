// `listen --expose-cmd` / `--expose ngrok` and `secret set ngrok-authtoken`: the fake tunnel program
// carries emulator deliveries end to end (emulator → its public URL → receiver → verified →
// forwarded), the agent's webhook is registered at <public URL>/hooks/<agent>, and on stop the CLI
// says the service still points there. Failures keep the local receiver running.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { signDelivery } from '../../src-main/core/signature';
import { runCli, runCliUntil } from '../helpers/cli';
import { DEMO_KEY, control, state } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import { fakeTunnelCommand, NO_NETWORK_ADDRESS } from '../helpers/fake-tunnel';
import { spawnCli } from '../helpers/spawn-cli';
import { waitFor } from '../helpers/wait';
import type { HttpSink } from '../helpers/http-sink';

/** The keychain account the ngrok authtoken is kept under. */
const NGROK_AUTHTOKEN_ACCOUNT = 'ngrok:authtoken';

let emu: Emulator;
let app: HttpSink;
let dir: string;
const store = new MemorySecretStore();
const ci = !!process.env.CI && process.env.CI !== 'false';
const TOKEN = '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH';

emulatorSuite('cc-cli-expose-', (s) => ({ emu, sink: app, dir } = s));

describe.skipIf(!ci && NO_NETWORK_ADDRESS !== null)('listen --expose-cmd against the emulator', () => {
  it('exposes, registers <public URL>/hooks/<agent>, carries an inbound message through, and says where the service still points on stop', async () => {
    const add = await runCli(
      ['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-connected'],
      { env: { CHANNEL_API_KEY: DEMO_KEY }, configDir: dir, secretStore: store },
    );
    expect(add.code).toBe(0);

    const r = await runCliUntil(
      ['listen', '--team', 'Demo', '--expose-cmd', fakeTunnelCommand(), '--forward-to', app.url, '--yes', '--json'],
      {
        configDir: dir,
        secretStore: store,
        env: { PATH: process.env.PATH, CHANNEL_API_KEY: 'must-not-reach-the-tunnel-program' },
      },
      {
        when: (lines) => lines.some((l) => l.event === 'registered'),
        act: () =>
          control(emu, 'POST', '/agents/agent-connected/inbound', {
            from: '+15550100002',
            type: 'text',
            text: 'through the public URL',
          }),
        until: (lines) => lines.some((l) => l.event === 'forward'),
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    const states = lines.filter((l) => l.event === 'exposure').map((l) => l.state);
    expect(states).toEqual(['starting', 'up', 'stopped']);
    const up = lines.find((l) => l.event === 'exposure' && l.state === 'up')!;
    const publicUrl = up.url as string;
    expect(publicUrl).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:\d+$/);
    expect(publicUrl).not.toContain('127.0.0.1');
    const hook = `${publicUrl}/hooks/agent-connected`;
    expect(lines).toContainEqual({
      event: 'exposed',
      url: publicUrl,
      hooks: [{ agentId: 'agent-connected', url: hook }],
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'registered', agentId: 'agent-connected', url: hook, secretStored: 'keychain' }),
    );

    // The emulator delivered to the public URL; the receiver verified it and forwarded it.
    const delivery = lines.find((l) => l.event === 'delivery')!;
    expect(delivery).toMatchObject({ agentId: 'agent-connected', ok: true, verdict: 'verified', from: '15550100002' });
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'forward', deliveryId: delivery.id, ok: true, status: 200 }),
    );
    expect(JSON.parse(app.requests.at(-1)!.body.toString()).message.text).toBe('through the public URL');
    const emuState = await state(emu);
    expect(JSON.stringify(emuState)).toContain(hook);

    // Stopped: the service still points at the dead URL, and the CLI says so.
    expect(lines).toContainEqual({
      event: 'still-registered',
      hooks: [{ agentId: 'agent-connected', url: hook }],
      reason: 'the service offers no way to remove a webhook',
    });
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    await expect(fetch(hook, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
  }, 30_000);

  it('in human mode: the public URL, each hook, and the plain words on stop', async () => {
    const ctl = new AbortController();
    const r = await runCli(['listen', '--team', 'Demo', '--expose-cmd', fakeTunnelCommand(), '--yes'], {
      configDir: dir,
      secretStore: store,
      env: { PATH: process.env.PATH },
      signal: ctl.signal,
      onStdout: (_c, all) => {
        if (all.includes('webhook of agent-connected')) ctl.abort();
      },
    });
    expect(r.code).toBe(0);
    const url = /public URL: (http:\/\/\S+)/.exec(r.stdout)?.[1];
    expect(url).toBeDefined();
    expect(r.stdout).toContain(`  agent-connected: ${url}/hooks/agent-connected`);
    expect(r.stdout).toContain(`webhook of agent-connected → ${url}/hooks/agent-connected`);
    expect(r.stdout).toContain(
      `The service still sends deliveries to ${url}, which no longer answers (it offers no way to remove a webhook)`,
    );
    expect(r.stdout).toContain('`channel-companion webhook set --team Demo --agent <agent> --url <url>`');
  }, 30_000);
  it('with one --secret and no agent, the public /hooks is printed and takes deliveries', async () => {
    const secret = 'whsec_public_hooks_secret_value';
    let seen: Array<Record<string, unknown>> = [];
    let status = 0;
    const r = await runCliUntil(
      ['listen', '--secret-env', 'S', '--expose-cmd', fakeTunnelCommand(), '--json'],
      { configDir: dir, secretStore: store, env: { PATH: process.env.PATH, S: secret } },
      {
        when: (lines) => ((seen = lines), lines.some((l) => l.event === 'exposed')),
        act: async () => {
          const exposed = seen.find((l) => l.event === 'exposed')!;
          const hook = (exposed.hooks as Array<{ url: string }>)[0]!.url;
          const post = (id: string) => {
            const body = `{"event":"message.received","message":{"id":"${id}"}}`;
            return fetch(hook, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                ...signDelivery(secret, body, Math.floor(Date.now() / 1000)),
              },
              body,
            });
          };
          status = (await post('m-public-hooks-1')).status;
          // A second one, so the run ends on its line, after the first one's answer has come back.
          await post('m-public-hooks-2');
        },
        until: (lines) => lines.filter((l) => l.event === 'delivery').length >= 2,
      },
    );
    expect(r.code).toBe(0);
    const exposed = r.json().find((l) => l.event === 'exposed')!;
    expect(exposed.hooks).toEqual([{ agentId: 'default', url: `${exposed.url as string}/hooks` }]);
    expect(status).toBe(200);
    expect(r.json()).toContainEqual(
      expect.objectContaining({ event: 'delivery', agentId: 'default', ok: true, verdict: 'verified' }),
    );
  }, 30_000);
});

describe.skipIf(!ci && NO_NETWORK_ADDRESS !== null)('listen --expose-cmd when listen itself is killed', () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('SIGKILL of listen: the tunnel program notices and stops (no public relay to a dead port)', async () => {
    const pidFile = join(dir, 'tunnel.pid');
    // $$ is the shell that runs the command; exec makes it the tunnel program itself.
    const command = `echo $$ > '${pidFile}'; exec ${fakeTunnelCommand()}`;
    const listen = spawnCli(
      ['listen', '--secret-env', 'S', '--expose-cmd', command, '--data-dir', join(dir, 'killed-run'), '--json'],
      { S: 'whsec_killed_listen_secret', XDG_CONFIG_HOME: join(dir, 'xdg') },
    );
    let pid = 0;
    try {
      await waitFor(() => listen.stdout().includes('"event":"exposed"'), 20_000, 'the exposure to come up');
      pid = Number((await readFile(pidFile, 'utf8')).trim());
      expect(alive(pid)).toBe(true);
      listen.child.kill('SIGKILL');
      await listen.exited;
      await waitFor(() => !alive(pid), 10_000, 'the tunnel program to stop after listen was killed');
    } finally {
      if (listen.child.exitCode === null && listen.child.signalCode === null) listen.child.kill('SIGKILL');
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 40_000);
});

describe('listen --expose failures keep the local receiver running', () => {
  it('a command that exits: the error says why and what to do; the receiver still takes deliveries', async () => {
    // It also shows whether the variables holding keys reached it (they must not).
    const failing = `'${process.execPath}' -e "console.error('tunnel: login required for {port}', 'key=' + (process.env.CHANNEL_API_KEY || 'none'), 'secret=' + (process.env.S || 'none')); process.exit(4)"`;
    let seen: Array<Record<string, unknown>> = [];
    const r = await runCliUntil(
      ['listen', '--secret-env', 'S', '--agent', 'a1', '--expose-cmd', failing, '--json'],
      {
        configDir: dir,
        secretStore: store,
        env: { PATH: process.env.PATH, S: 'whsec_local_only_secret_value', CHANNEL_API_KEY: 'key-that-stays-here' },
      },
      {
        when: (lines) => ((seen = lines), lines.some((l) => l.event === 'exposure' && l.state === 'failed')),
        act: async () => {
          const ready = seen.find((l) => l.event === 'ready')!;
          const body = '{"event":"message.received","message":{"id":"m-expose-1"}}';
          const headers = {
            'content-type': 'application/json',
            ...signDelivery('whsec_local_only_secret_value', body, Math.floor(Date.now() / 1000)),
          };
          await fetch(`${ready.url as string}/hooks/a1`, { method: 'POST', headers, body });
        },
        until: (lines) => lines.some((l) => l.event === 'delivery'),
      },
    );
    const lines = r.json();
    const failed = lines.find((l) => l.event === 'exposure' && l.state === 'failed')!;
    expect(failed.error).toMatchObject({ code: 'exited' });
    expect((failed.error as { message: string }).message).toContain('exited with code 4 before printing a public URL');
    expect((failed.error as { message: string }).message).toContain('login required for');
    expect((failed.error as { message: string }).message).toContain('key=none secret=none');
    expect((failed.error as { hint: string }).hint).toMatch(/local receiver keeps working/);
    expect(r.stderr).toContain('warning');
    expect(lines.some((l) => l.event === 'delivery')).toBe(true);
    expect(r.code).toBe(0);
  }, 20_000);

  // A command that prints which of the named variables reached it, then fails (its last output is in the error).
  const reporting = (names: string[]) =>
    `'${process.execPath}' -e "console.error('tunnel {port} saw=' + (${JSON.stringify(names).replace(/"/g, "'")}.filter((n) => process.env[n] !== undefined).join(',') || 'none')); process.exit(4)"`;
  const seenBy = (lines: Array<Record<string, unknown>>) => {
    const failed = lines.find((l) => l.event === 'exposure' && l.state === 'failed')!;
    return /saw=(\S+)/.exec((failed.error as { message: string }).message)?.[1];
  };

  it('the tunnel program sees no variable holding a key or secret this process knows, whatever its name', async () => {
    const SECRET = 'whsec_value_copied_elsewhere_0123';
    const env = {
      PATH: process.env.PATH,
      MY_KEY: DEMO_KEY,
      CHANNEL_API_KEY: 'key-of-another-team-0123456789',
      KEY_COPY: DEMO_KEY,
      AUTH_HEADER: `Bearer ${DEMO_KEY}`,
      S: SECRET,
      SECRET_COPY: SECRET,
      HARMLESS: 'stays',
    };
    const names = [...Object.keys(env).filter((n) => n !== 'PATH')];
    const r = await runCliUntil(
      [
        'listen',
        '--base-url',
        emu.baseUrl,
        '--agent',
        'agent-connected',
        '--api-key-env',
        'MY_KEY',
        '--secret-env',
        'S',
        '--expose-cmd',
        reporting(names),
        '--yes',
        '--json',
      ],
      { configDir: dir, secretStore: new MemorySecretStore(), env },
      { until: (lines) => lines.some((l) => l.event === 'exposure' && l.state === 'failed') },
    );
    expect(seenBy(r.json())).toBe('HARMLESS');
  });

  it('…nor a copy of a key or the ngrok authtoken kept in the keychain', async () => {
    const s = new MemorySecretStore();
    await s.set(NGROK_AUTHTOKEN_ACCOUNT, TOKEN);
    const add = await runCli(
      ['team', 'add', '--label', 'Hidden', '--base-url', emu.baseUrl, '--agent', 'agent-connected'],
      { env: { CHANNEL_API_KEY: DEMO_KEY }, configDir: dir, secretStore: s },
    );
    expect(add.code).toBe(0);
    const env = { PATH: process.env.PATH, KEY_COPY: DEMO_KEY, NGROK_COPY: TOKEN, HARMLESS: 'stays' };
    const r = await runCliUntil(
      [
        'listen',
        '--team',
        'Hidden',
        '--expose-cmd',
        reporting(['KEY_COPY', 'NGROK_COPY', 'HARMLESS']),
        '--yes',
        '--json',
      ],
      { configDir: dir, secretStore: s, env },
      {
        until: (lines) => lines.some((l) => l.event === 'exposure' && l.state === 'failed'),
      },
    );
    expect(seenBy(r.json())).toBe('HARMLESS');
    const removed = await runCli(['team', 'remove', 'Hidden'], { configDir: dir, secretStore: s });
    expect(removed.code).toBe(0);
  });

  it('ngrok with no authtoken stored: says how to store one', async () => {
    const r = await runCliUntil(
      ['listen', '--secret-env', 'S', '--expose', 'ngrok', '--json'],
      { configDir: dir, secretStore: new MemorySecretStore(), env: { S: 'whsec_local_only_secret_value' } },
      {
        until: (lines) => lines.some((l) => l.event === 'exposure' && l.state === 'failed'),
      },
    );
    const failed = r.json().find((l) => l.event === 'exposure' && l.state === 'failed')!;
    expect(failed).toMatchObject({ kind: 'ngrok', error: { code: 'no-authtoken' } });
    expect((failed.error as { hint: string }).hint).toContain('channel-companion secret set ngrok-authtoken');
  });

  it.each([
    [['--expose', 'localtunnel'], '--expose'],
    [['--expose', 'ngrok', '--expose-cmd', 'x {port}'], 'not both'],
    [['--expose-cmd', 'cloudflared tunnel'], '{port}'],
    [['--expose', 'ngrok', '--register-url', 'https://x.example'], 'leave out --register-url'],
  ])('usage: %j', async (args, said) => {
    const r = await runCli(['listen', ...args], { configDir: dir, secretStore: store });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(said);
  });
});

describe('secret set|status|delete ngrok-authtoken', () => {
  it('reads it from stdin, keeps it in the keychain, prints only a hint', async () => {
    const s = new MemorySecretStore();
    const set = await runCli(['secret', 'set', 'ngrok-authtoken', '--json'], {
      secretStore: s,
      stdin: Readable.from([`${TOKEN}\n`]) as never,
    });
    expect(set.code).toBe(0);
    expect(set.json()).toEqual([{ name: 'ngrok-authtoken', stored: true, hint: '…EFGH' }]);
    expect(await s.get(NGROK_AUTHTOKEN_ACCOUNT)).toBe(TOKEN);
    const status = await runCli(['secret', 'status', 'ngrok-authtoken'], { secretStore: s });
    expect(status.stdout).toBe('ngrok-authtoken …EFGH is stored in the keychain\n');
    const del = await runCli(['secret', 'delete', 'ngrok-authtoken'], { secretStore: s });
    expect(del.stdout).toBe('ngrok-authtoken deleted from the keychain\n');
    expect(await s.get(NGROK_AUTHTOKEN_ACCOUNT)).toBeNull();
    for (const r of [set, status, del]) expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('reads it from --from-env', async () => {
    const s = new MemorySecretStore();
    const r = await runCli(['secret', 'set', 'ngrok-authtoken', '--from-env', 'NGROK_TOKEN'], {
      secretStore: s,
      env: { NGROK_TOKEN: TOKEN },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ngrok-authtoken …EFGH stored in the keychain\n');
    expect(await s.get(NGROK_AUTHTOKEN_ACCOUNT)).toBe(TOKEN);
  });

  it.each([
    [['secret', 'set', 'ngrok-authtoken'], {}, 'nothing to read'],
    [['secret', 'set', 'ngrok-authtoken'], { stdin: Readable.from(['']) }, 'nothing was read from stdin'],
    [
      ['secret', 'set', 'ngrok-authtoken'],
      { stdin: Readable.from(['not a token at all\n']) },
      'not an ngrok authtoken',
    ],
    [['secret', 'set', 'ngrok-authtoken', '--from-env', 'NOPE'], {}, 'NOPE is not set'],
    [['secret', 'set', 'api-key'], {}, 'expected a secret name'],
  ])('refuses %j clearly, storing nothing', async (args, extra, said) => {
    const s = new MemorySecretStore();
    const r = await runCli(args, { secretStore: s, ...(extra as object) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(said);
    expect(await s.get(NGROK_AUTHTOKEN_ACCOUNT)).toBeNull();
  });

  it('has no flag that takes the value', async () => {
    const r = await runCli(['secret', 'set', 'ngrok-authtoken', `--token=${TOKEN}`], {
      secretStore: new MemorySecretStore(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(TOKEN);
  });
});
