// `listen` against the emulator, through the data folder's companion (none runs, so the command starts one on
// any free port): --register-url self points the agent's webhook at the companion's receiver and stores the
// signing secret; an emulator inbound message arrives, is `verified` and reaches a local test app through
// this listener's own forward; then `deliveries list/show/export` read it back.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { decodeSigningSecrets } from '../../src-main/core/teams/signing';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { verifyDelivery } from '../../src-main/core/signature';
import { runCli, runCliUntil } from '../helpers/cli';
import { DEMO_KEY, control } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import type { HttpSink } from '../helpers/http-sink';

let emu: Emulator;
let app: HttpSink;
let dir: string;
const store = new MemorySecretStore();

emulatorSuite('cc-cli-tunnel-', (s) => ({ emu, sink: app, dir } = s));

describe('listen + deliveries against the emulator', () => {
  let deliveryId = '';

  it('registers itself, receives an inbound message verified, forwards it to the local app', async () => {
    const add = await runCli(
      ['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-connected'],
      { env: { CHANNEL_API_KEY: DEMO_KEY }, configDir: dir, secretStore: store },
    );
    expect(add.code).toBe(0);

    const r = await runCliUntil(
      ['listen', '--team', 'Demo', '--register-url', 'self', '--forward-to', app.url, '--port', '0', '--yes', '--json'],
      { configDir: dir, secretStore: store },
      {
        when: (lines) => lines.some((l) => l.event === 'registered'),
        act: () =>
          control(emu, 'POST', '/agents/agent-connected/inbound', {
            from: '+15550100002',
            type: 'text',
            text: 'hello tunnel',
          }),
        until: (lines) => lines.some((l) => l.event === 'forward'),
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    const ready = lines.find((l) => l.event === 'ready')!;
    expect(ready).toMatchObject({
      companion: null,
      forwardTo: app.url,
      agents: [expect.objectContaining({ agentId: 'agent-connected', hasSecret: true })],
    });
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const hook = `${ready.url as string}/hooks/agent-connected`;
    expect(ready.agents).toEqual([expect.objectContaining({ receiverUrl: hook, publicUrl: hook })]);
    // Registered before it was ready, the listener already hearing of every delivery.
    expect(lines.findIndex((l) => l.event === 'registered')).toBeLessThan(lines.indexOf(ready));
    expect(lines).toContainEqual({
      event: 'registered',
      teamId: expect.any(String),
      agentId: 'agent-connected',
      registration: expect.objectContaining({ url: hook }),
    });
    const delivery = lines.find((l) => l.event === 'delivery')!.delivery as Record<string, unknown>;
    expect(delivery).toMatchObject({
      agentId: 'agent-connected',
      verdict: 'verified',
      from: '15550100002',
      messageType: 'text',
      event: 'message.received',
    });
    // Forwarded once, by this listener, to its own target.
    expect(lines.filter((l) => l.event === 'forward')).toEqual([
      {
        event: 'forward',
        listener: true,
        forward: expect.objectContaining({ deliveryId: delivery.id, status: 200, url: app.url }),
      },
    ]);
    deliveryId = delivery.id as string;

    // The local app got the original bytes and signature: it verifies with the stored secret.
    const secrets = Object.entries(store.snapshot()).filter(([k]) => k.includes('signing-secret'));
    expect(secrets).toHaveLength(1);
    const candidates = decodeSigningSecrets(secrets[0]![1]);
    expect(candidates).toHaveLength(1);
    const req = app.requests.at(-1)!;
    expect(JSON.parse(req.body.toString()).message.text).toBe('hello tunnel');
    expect(
      verifyDelivery({
        headers: req.headers as Record<string, string>,
        rawBody: req.body,
        secrets: candidates,
        now: Math.floor(Date.now() / 1000),
      }).ok,
    ).toBe(true);
    for (const s of candidates) expect(r.stdout + r.stderr).not.toContain(s);
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
  }, 20_000);

  it('deliveries list / show / export read it back from the default data folder, as the contract says it', async () => {
    const opts = { configDir: dir, secretStore: store };
    const list = await runCli(['deliveries', 'list', '--json'], opts);
    expect(list.code).toBe(0);
    const [item] = list.json();
    expect(list.json()).toHaveLength(1);
    expect(item).toMatchObject({
      id: deliveryId,
      agentId: 'agent-connected',
      event: 'message.received',
      messageType: 'text',
      verdict: 'verified',
      // Forwarded by the listener to its own target; the companion has none, so it forwarded nothing.
      forwardStatus: null,
    });
    expect(item!.serviceId).toMatch(/^dlv_/);
    for (const old of ['eventType', 'type', 'forward', 'forwardState', 'ok']) expect(item).not.toHaveProperty(old);
    // The same delivery by the service's id (its x-delivery-id) as by this app's.
    for (const id of [deliveryId, item!.serviceId as string]) {
      const show = await runCli(['deliveries', 'show', id, '--json'], opts);
      expect(show.code).toBe(0);
      expect(show.json()[0]).toMatchObject({
        id: deliveryId,
        verdict: 'verified',
        forwardState: 'not-forwarded',
        forwards: [],
      });
    }
    const text = await runCli(['deliveries', 'show', item!.serviceId as string], opts);
    expect(text.stdout.split('\n')[0]).toBe(
      `${deliveryId}  service: ${item!.serviceId as string}  message: ${item!.messageId as string}`,
    );
    expect(text.stdout).toContain('verdict: Verified');
    const curl = await runCli(['deliveries', 'export', deliveryId, '--url', app.url], opts);
    expect(curl.code).toBe(0);
    expect(curl.stdout).toMatch(/^curl -sS -X POST/);
    expect(curl.stdout).toContain('hello tunnel');
    expect(curl.stdout).toContain(app.url);
    const fixture = await runCli(['deliveries', 'export', deliveryId, '--format', 'fixture', '--json'], opts);
    const exported = fixture.json()[0]!;
    expect(exported).toMatchObject({ format: 'fixture', filename: `delivery-${deliveryId}.json` });
    expect(JSON.parse(exported.content as string)).toMatchObject({ id: deliveryId, agentId: 'agent-connected' });
  });

  it('no file under the config folder holds the API key or the signing secret', async () => {
    let text = '';
    for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (e.isFile()) text += await readFile(join(e.parentPath, e.name), 'utf8');
    }
    expect(text).not.toContain(DEMO_KEY);
    const secrets = Object.entries(store.snapshot()).filter(([k]) => k.includes('signing-secret'));
    const stored = decodeSigningSecrets(secrets[0]![1]);
    expect(stored).toHaveLength(1);
    for (const s of stored) expect(text).not.toContain(s);
  });

  it('--forward-to with a user and password: the forward carries them, nothing printed or kept shows them', async () => {
    const PASSWORD = 's3cret-pass-0f9e8d';
    const withCredentials = app.url.replace('http://', `http://hook-user:${PASSWORD}@`);
    const shown = app.url.replace('http://', 'http://***@');
    const dataDir = join(dir, 'credentials-run');
    const r = await runCliUntil(
      [
        'listen',
        '--team',
        'Demo',
        '--register-url',
        'self',
        '--forward-to',
        withCredentials,
        '--data-dir',
        dataDir,
        '--port',
        '0',
        '--yes',
        '--json',
      ],
      { configDir: dir, secretStore: store },
      {
        when: (lines) => lines.some((l) => l.event === 'registered'),
        act: () =>
          control(emu, 'POST', '/agents/agent-connected/inbound', {
            from: '+15550100002',
            type: 'text',
            text: 'behind basic auth',
          }),
        until: (lines) => lines.some((l) => l.event === 'forward'),
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines.find((l) => l.event === 'ready')).toMatchObject({ forwardTo: shown });
    expect(lines).toContainEqual({
      event: 'forward',
      listener: true,
      forward: expect.objectContaining({ status: 200, url: shown }),
    });
    expect(app.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from(`hook-user:${PASSWORD}`).toString('base64')}`,
    );
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);

    const show = await runCli(['deliveries', 'list', '--data-dir', dataDir, '--json'], {
      configDir: dir,
      secretStore: store,
    });
    expect(show.stdout).not.toContain(PASSWORD);
    let kept = '';
    for (const e of await readdir(dataDir, { withFileTypes: true, recursive: true })) {
      if (e.isFile()) kept += (await readFile(join(e.parentPath, e.name))).toString('latin1');
    }
    // The delivery is kept; the listener's own target is not the companion's, so nothing kept names it.
    expect(show.json()).toEqual([expect.objectContaining({ agentId: 'agent-connected', verdict: 'verified' })]);
    expect(kept).not.toContain(PASSWORD);
  }, 20_000);
});
