// `listen`: the receiver on 127.0.0.1 port 0, verified deliveries forwarded to a loopback sink,
// one JSON line per delivery and per forward; the secret from --secret-env, or for a saved team the
// data folder's companion (started in-process here, on any free port) with the team's keychain secret.
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../src-main/core/signature';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { parseJsonLines, runCli, type RunCliOptions } from '../../helpers/cli';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import { waitFor } from '../../helpers/wait';
import { CONNECTED, fakeClientFactory } from './fake-client';

const SECRET = 'whsec_listen_0123456789abcdef';
let dir: string;
let sink: HttpSink;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-listen-'));
  sink = await startHttpSink();
});
afterAll(async () => {
  await sink?.close();
  await rm(dir, { recursive: true, force: true });
});

function post(url: string, secret: string, text: string, only?: 'x-service-signature'): Promise<Response> {
  const body = Buffer.from(
    JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id: `wamid_${text}`, type: 'text', text, fromMe: false },
      timestamp: new Date().toISOString(),
    }),
  );
  const signed = signDelivery(secret, body, Math.floor(Date.now() / 1000));
  const headers = only ? { [only]: signed[only]! } : signed;
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** Runs listen; once ready, calls onReady(hookUrl); stops when `done(lines)` says so. */
async function listen(
  args: string[],
  opts: RunCliOptions,
  onReady: (hook: string) => Promise<void>,
  done: (lines: Array<Record<string, unknown>>) => boolean,
) {
  const ctl = new AbortController();
  let started = false;
  const errors: unknown[] = [];
  const r = await runCli(['listen', ...args, '--json'], {
    ...opts,
    signal: ctl.signal,
    onStdout: (_c, all) => {
      const lines = parseJsonLines(all);
      const ready = lines.find((l) => l.event === 'ready');
      if (ready && !started) {
        started = true;
        // A bare receiver names its hooks; the companion's receiver names each agent's receiverUrl.
        const hooks =
          (ready.hooks as Array<{ url: string }> | undefined)?.map((h) => h.url) ??
          (ready.agents as Array<{ receiverUrl: string }>).map((a) => a.receiverUrl);
        onReady(hooks[0] ?? `${ready.url as string}/hooks`).catch((e: unknown) => {
          errors.push(e);
          ctl.abort();
        });
      }
      if (done(lines)) ctl.abort();
    },
  });
  expect(errors).toEqual([]);
  return r;
}

describe('listen', () => {
  it('verifies, logs and forwards; a bad signature is refused with 401, kept as metadata only, not forwarded', async () => {
    const before = sink.requests.length;
    const statuses: number[] = [];
    const r = await listen(
      ['--agent', 'a1', '--secret-env', 'HOOK_SECRET', '--forward-to', sink.url, '--data-dir', join(dir, 'd1')],
      { env: { HOOK_SECRET: SECRET }, configDir: dir },
      async (hook) => {
        expect(hook).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/a1$/);
        statuses.push((await post(hook, SECRET, 'good')).status);
        statuses.push((await post(hook, 'wrong-secret-xyz', 'bad')).status);
      },
      (lines) => lines.some((l) => l.event === 'forward') && lines.some((l) => l.event === 'refused'),
    );
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'ready', forwardTo: sink.url });
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'delivery',
        agentId: 'a1',
        ok: true,
        verdict: 'verified',
        messageId: 'wamid_good',
        forward: true,
      }),
    );
    expect(lines.filter((l) => l.event === 'delivery')).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'refused',
        agentId: 'a1',
        reason: 'signature-mismatch',
        status: 401,
        path: '/hooks/a1',
      }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ event: 'forward', ok: true, status: 200, url: sink.url }));
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(statuses[1]).toBe(401);
    expect(sink.requests.length).toBe(before + 1);
    expect(JSON.parse(sink.requests.at(-1)!.body.toString()).message.text).toBe('good');
    expect(r.stdout + r.stderr).not.toContain(SECRET);

    const list = await runCli(['deliveries', 'list', '--data-dir', join(dir, 'd1'), '--json'], { configDir: dir });
    expect(list.json().map((i) => i.verdict)).toEqual(['verified']);
    const refused = await runCli(['deliveries', 'refused', '--data-dir', join(dir, 'd1'), '--json'], {
      configDir: dir,
    });
    expect(refused.json()).toEqual([
      expect.objectContaining({ reason: 'signature-mismatch', agentId: 'a1', status: 401, method: 'POST' }),
    ]);
    expect(refused.json()[0]!.detail as string).toMatch(/signature/);
  });

  it('--secret and no agent: the printed URL itself takes deliveries; a wrong path is shown as not a hook, a made-up agent as unknown; --secret warns', async () => {
    let printed = '';
    const statuses: number[] = [];
    const r = await listen(
      ['--secret', SECRET, '--data-dir', join(dir, 'd3')],
      { configDir: dir },
      async (hook) => {
        printed = hook;
        statuses.push((await post(hook, SECRET, 'printed')).status);
        statuses.push((await post(hook.replace(/\/hooks$/, '/webhook'), SECRET, 'wrong-path')).status);
        // One --secret serves every agent id: only the printed hook takes deliveries, so the same
        // delivery cannot be replayed once per made-up agent.
        statuses.push((await post(`${hook}/made-up`, SECRET, 'printed')).status);
      },
      (lines) => lines.some((l) => l.event === 'delivery') && lines.filter((l) => l.event === 'refused').length >= 2,
    );
    expect(r.code).toBe(0);
    const ready = r.json()[0]!;
    expect(ready.hooks).toEqual([{ agentId: 'default', url: `${ready.url as string}/hooks` }]);
    expect(printed).toBe(`${ready.url as string}/hooks`);
    expect(statuses).toEqual([200, 404, 404]);
    expect(r.json()).toContainEqual(
      expect.objectContaining({ event: 'refused', reason: 'unknown-agent', path: '/hooks/made-up', status: 404 }),
    );
    expect(r.json()).toContainEqual(
      expect.objectContaining({ event: 'refused', reason: 'not-a-hook', path: '/webhook', status: 404, agentId: null }),
    );
    expect(r.stderr).toMatch(/process list/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    const refused = await runCli(['deliveries', 'refused', '--data-dir', join(dir, 'd3'), '--reason', 'not-a-hook'], {
      configDir: dir,
    });
    expect(refused.stdout).toMatch(/ {2}Not a hook {2}404 {2}POST \/webhook {2}from 127\.0\.0\.1 /);
  });

  it('--max-connections: idle connections beyond it are closed, deliveries still taken', async () => {
    const r = await listen(
      ['--secret-env', 'S', '--agent', 'a1', '--max-connections', '3', '--data-dir', join(dir, 'd-cap')],
      { configDir: dir, env: { S: SECRET } },
      async (hook) => {
        const u = new URL(hook);
        let closed = 0;
        const sockets = Array.from({ length: 8 }, () => {
          const s = connect({ host: u.hostname, port: Number(u.port) });
          s.on('error', () => undefined);
          s.on('close', () => closed++);
          return s;
        });
        try {
          await waitFor(() => closed >= 5, 5_000, 'idle connections over the cap closed');
          expect((await post(hook, SECRET, 'capped')).status).toBe(200);
        } finally {
          for (const s of sockets) s.destroy();
        }
      },
      (lines) => lines.some((l) => l.event === 'delivery'),
    );
    expect(r.code).toBe(0);
    expect(r.json()).toContainEqual(expect.objectContaining({ event: 'delivery', agentId: 'a1', verdict: 'verified' }));
    const bad = await runCli(['listen', '--secret-env', 'S', '--max-connections', '0'], {
      configDir: dir,
      env: { S: SECRET },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/max-connections/);
  });

  it('makes the data folder it is given private (0700), and the tunnel folder in it, whatever they were', async () => {
    const data = join(dir, 'shared-data');
    await mkdir(join(data, 'tunnel'), { recursive: true, mode: 0o755 });
    await chmod(data, 0o755);
    await chmod(join(data, 'tunnel'), 0o755);
    await writeFile(join(data, 'tunnel', 'seen.jsonl'), '', { mode: 0o644 });
    await chmod(join(data, 'tunnel', 'seen.jsonl'), 0o644);
    const r = await listen(
      ['--secret-env', 'HOOK_SECRET', '--data-dir', data],
      { configDir: dir, env: { HOOK_SECRET: SECRET } },
      async () => undefined,
      (lines) => lines.some((l) => l.event === 'ready'),
    );
    expect(r.code).toBe(0);
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(data)).toBe(0o700);
    expect(await mode(join(data, 'tunnel'))).toBe(0o700);
    expect(await mode(join(data, 'tunnel', 'seen.jsonl'))).toBe(0o600);
  });

  it('human mode prints the full hook URL of each agent', async () => {
    const ctl = new AbortController();
    const r = await runCli(
      ['listen', '--agent', 'a1', '--agent', 'a2', '--secret-env', 'HOOK_SECRET', '--data-dir', join(dir, 'd4')],
      {
        env: { HOOK_SECRET: SECRET },
        configDir: dir,
        signal: ctl.signal,
        onStdout: (_c, all) => {
          if (all.includes('Ctrl-C')) ctl.abort();
        },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^receiving webhook deliveries at:\n {2}a1: http:\/\/127\.0\.0\.1:\d+\/hooks\/a1\n {2}a2: http:\/\/127\.0\.0\.1:\d+\/hooks\/a2\n/,
    );
  });

  it('a delivery signed only with the legacy header is refused unless --allow-legacy-signature', async () => {
    const legacy = (args: string[], d: string) =>
      listen(
        ['--agent', 'a1', '--secret-env', 'HOOK_SECRET', '--data-dir', join(dir, d), ...args],
        { env: { HOOK_SECRET: SECRET }, configDir: dir },
        async (hook) => void (await post(hook, SECRET, `legacy-${d}`, 'x-service-signature')),
        (lines) => lines.some((l) => l.event === 'delivery' || l.event === 'refused'),
      );
    const refused = (await legacy([], 'd5')).json();
    expect(refused).toContainEqual(expect.objectContaining({ event: 'refused', reason: 'legacy-only', status: 401 }));
    const allowed = (await legacy(['--allow-legacy-signature'], 'd6')).json();
    expect(allowed[0]).toMatchObject({ event: 'ready', allowLegacySignature: true });
    expect(allowed).toContainEqual(
      expect.objectContaining({ event: 'delivery', ok: true, verdict: 'verified-legacy-only' }),
    );
  });

  it('--team: the companion receives with the signing secret from the keychain (stored by webhook set --team)', async () => {
    const store = new MemorySecretStore();
    const { factory } = fakeClientFactory({
      getSession: async () => CONNECTED,
      setWebhook: async (_a, url) => ({ mode: 'passthrough', url, secret: SECRET }),
    });
    const base = { createClient: factory, secretStore: store, configDir: dir };
    expect(
      (
        await runCli(['team', 'add', '--label', 'Demo', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], {
          ...base,
          env: { CHANNEL_API_KEY: 'key-0123456789abcdef' },
        })
      ).code,
    ).toBe(0);
    expect(
      (await runCli(['webhook', 'set', '--team', 'Demo', '--url', 'https://example.test/h', '--yes'], base)).code,
    ).toBe(0);
    const r = await listen(
      ['--team', 'Demo', '--port', '0', '--data-dir', join(dir, 'd2')],
      base,
      async (hook) => {
        expect(hook).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/a1$/);
        expect((await post(hook, SECRET, 'team')).status).toBe(200);
        expect((await post(hook, 'wrong-secret-xyz', 'forged')).status).toBe(401);
      },
      (lines) => lines.some((l) => l.event === 'delivery') && lines.some((l) => l.event === 'refused'),
    );
    expect(r.code).toBe(0);
    const lines = r.json();
    // Started for this command (none ran), not attached; no target of its own to forward to.
    expect(lines[0]).toMatchObject({ event: 'ready', companion: null, forwardTo: null });
    expect(lines[0]!.agents).toEqual([expect.objectContaining({ agentId: 'a1', hasSecret: true })]);
    expect(lines).toContainEqual({
      event: 'delivery',
      delivery: expect.objectContaining({ agentId: 'a1', verdict: 'verified', messageId: 'wamid_team' }),
    });
    expect(lines).toContainEqual({
      event: 'refused',
      refused: expect.objectContaining({ agentId: 'a1', reason: 'signature-mismatch', status: 401 }),
    });
    expect(lines.filter((l) => l.event === 'delivery')).toHaveLength(1);
    expect(lines.some((l) => l.event === 'forward')).toBe(false);
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    // The companion stored it in the data folder it was given, under the same id the line printed.
    const delivery = lines.find((l) => l.event === 'delivery')!.delivery as { id: string };
    const list = await runCli(['deliveries', 'list', '--data-dir', join(dir, 'd2'), '--json'], base);
    expect(list.json().map((i) => i.id)).toEqual([delivery.id]);
  });

  const bad: Array<[string, string[], Record<string, string>]> = [
    ['bad port', ['listen', '--port', '99999'], {}],
    ['bad host', ['listen', '--host', 'a b'], {}],
    ['both secret flags', ['listen', '--secret', 's', '--secret-env', 'X'], { X: 's' }],
    ['secret env unset', ['listen', '--secret-env', 'NOPE'], {}],
    ['bad forward URL', ['listen', '--forward-to', 'nope'], {}],
    ['register without a team or base URL', ['listen', '--register-url', 'https://x.test'], {}],
    ['--team with --base-url', ['listen', '--team', 'x', '--base-url', 'http://127.0.0.1:9'], {}],
    ['unknown team', ['listen', '--team', 'nope'], {}],
  ];
  for (const [name, args, env] of bad) {
    it(`usage error: ${name} → exit 2, nothing started`, async () => {
      const r = await runCli([...args, '--json', '--data-dir', join(dir, 'bad')], {
        env,
        configDir: dir,
        secretStore: new MemorySecretStore(),
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    });
  }
});
