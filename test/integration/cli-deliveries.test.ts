// `trigger` and `deliveries list|show|refused|replay|export` as clients of the companion of the data folder:
// first attached to one started here (hostCompanion, as `up` starts it), where what they print is what the
// contract answers that companion's own clients; then, with none running, each starting one in its own process
// for its duration. --json prints the contract's DTOs as they are.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractClient } from '../../src-main/app/client';
import { readCompanionOwner } from '../../src-main/app/companion/endpoint';
import { hostCompanion, type HostedCompanion } from '../../src-main/app/companion/hosted';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { decodeSigningSecrets } from '../../src-main/core/teams/signing';
import { signDelivery, verifyDelivery } from '../../src-main/core/signature';
import { runCli } from '../helpers/cli';
import { control, DEMO_KEY, waitFor } from '../helpers/emulator';
import { emulatorSuite, type EmulatorSuite } from '../helpers/emulator-suite';
import { startHttpSink, type HttpSink } from '../helpers/http-sink';

const AGENT = 'agent-connected';
let s: EmulatorSuite;
let failing: HttpSink;
const store = new MemorySecretStore();
let hosted: HostedCompanion | null = null;
let client: ContractClient;
let listenUrl = '';

emulatorSuite('cc-cli-deliveries-', (x) => (s = x));

const configDir = () => join(s.dir, 'config');
const dataDir = () => join(s.dir, 'data');
const cli = (args: string[]) =>
  runCli([...args, '--data-dir', dataDir()], { configDir: configDir(), secretStore: store });

/** The agent's signing secrets, as the companion keeps them (the local app verifies with these). */
function storedSecrets(): string[] {
  const entry = Object.entries(store.snapshot()).find(([k]) => k.includes('signing-secret'));
  return entry ? decodeSigningSecrets(entry[1]) : [];
}

function verifies(req: HttpSink['requests'][number]): boolean {
  return verifyDelivery({
    headers: req.headers as Record<string, string>,
    rawBody: req.body,
    secrets: storedSecrets(),
    now: Math.floor(Date.now() / 1000),
  }).ok;
}

beforeAll(async () => {
  failing = await startHttpSink(500);
  hosted = await hostCompanion({
    shell: 'up',
    configDir: configDir(),
    dataDir: dataDir(),
    secrets: store,
    poll: { intervalMs: 60_000 },
    tunnelPort: 0,
  });
  client = hosted.client();
  const team = await client.request('teams.add', {
    label: 'Emulated',
    baseUrl: s.emu.baseUrl,
    apiKey: DEMO_KEY,
    agents: [{ agentId: AGENT }],
  });
  // Asking for the receiver's status starts it (as the Tunnel screen does).
  listenUrl = await waitFor(async () => (await client.request('tunnel.status', {})).listenUrl, 5000);
  await client.request('webhook.register', {
    teamId: team.teamId,
    agentId: AGENT,
    publicUrl: `${listenUrl}/hooks/${AGENT}`,
  });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await hosted?.close();
  await failing?.close();
});

describe('attached to the running companion of the data folder', () => {
  let simulatedId = '';
  let receivedId = '';
  let serviceId = '';

  it('trigger: the companion signs and stores it; --forward-to sends it once, the app verifies it', async () => {
    const before = s.sink.requests.length;
    const r = await cli(['trigger', '--agent', AGENT, '--text', 'hello there', '--forward-to', s.sink.url, '--json']);
    expect(r.code).toBe(0);
    const [line1, line2, ...rest] = r.json();
    expect(rest).toEqual([]);
    expect(line1).toMatchObject({ event: 'delivery' });
    expect(line2).toMatchObject({ event: 'forward' });
    const delivery = line1!.delivery as Record<string, unknown>;
    const forward = line2!.forward as Record<string, unknown>;
    expect(delivery).toMatchObject({
      agentId: AGENT,
      event: 'message.received',
      messageType: 'text',
      from: '15550100002',
      verdict: 'simulated',
      preview: 'hello there',
    });
    simulatedId = delivery.id as string;
    expect(forward).toMatchObject({ deliveryId: simulatedId, replay: 'as-received', status: 200, url: s.sink.url });
    expect(s.sink.requests.length).toBe(before + 1);
    expect(verifies(s.sink.requests.at(-1)!)).toBe(true);
    // The companion's own clients see the same delivery, the same way.
    const theirs = await client.request('tunnel.deliveries', {});
    expect(theirs.find((d) => d.id === simulatedId)).toEqual(delivery);
    for (const secret of storedSecrets()) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('trigger without --forward-to: forwarded by the companion to its forward address; a refusal says the companion retries, not `listen`', async () => {
    const settings = await client.request('settings.get', {});
    await client.request('settings.update', {
      patch: { tunnel: { port: settings.tunnel.port, forwardTo: failing.url } },
    });
    try {
      const r = await cli(['trigger', '--agent', AGENT, '--text', 'to the forward address']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/→ forward to http:\/\/127\.0\.0\.1:\d+\/hook: 500 — HTTP 500 in \d+ ms/);
      expect(r.stderr).toContain('the companion keeps retrying it while it runs');
      expect(r.stdout + r.stderr).not.toContain('listen');
    } finally {
      await client.request('settings.update', { patch: { tunnel: { port: settings.tunnel.port, forwardTo: null } } });
    }
  });

  it('a delivery from the service: list --json is the contract’s DeliverySummaryDTO, as the companion answers it', async () => {
    await control(s.emu, 'POST', `/agents/${AGENT}/inbound`, {
      from: '+15550100003',
      type: 'text',
      text: 'from the service',
    });
    const got = await waitFor(async () => {
      const list = await client.request('tunnel.deliveries', { text: 'from the service' });
      return list[0];
    }, 10_000);
    receivedId = got.id;
    serviceId = got.serviceId!;
    expect(serviceId).toMatch(/^dlv_/);
    const r = await cli(['deliveries', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual(await client.request('tunnel.deliveries', {}));
    const filtered = await cli(['deliveries', 'list', '--verdict', 'simulated', '--type', 'text', '--json']);
    expect(filtered.json().map((d) => d.id)).toContain(simulatedId);
    expect(filtered.json().map((d) => d.id)).not.toContain(receivedId);
    const text = await cli(['deliveries', 'list', '--from', '+15550100003']);
    expect(text.stdout.trim()).toBe(
      [
        receivedId,
        new Date(got.receivedAt).toISOString(),
        AGENT,
        'Verified',
        'Text',
        '+15550100003',
        'Not forwarded',
        `(service: ${serviceId})`,
      ].join('  '),
    );
  });

  it("show takes this app's id and the service's, and prints the contract's DeliveryDetailDTO", async () => {
    const detail = await client.request('tunnel.delivery', { id: receivedId });
    for (const id of [receivedId, serviceId]) {
      const r = await cli(['deliveries', 'show', id, '--json']);
      expect(r.code).toBe(0);
      expect(r.json()).toEqual([detail]);
    }
    const text = await cli(['deliveries', 'show', serviceId]);
    expect(text.stdout).toContain(`${receivedId}  service: ${serviceId}`);
    expect(text.stdout).toContain('verdict: Verified');
    expect(text.stdout).toContain('from the service');
  });

  it('replay to --forward-to, by either id: the attempt as the contract’s ForwardResultDTO, recorded by the companion', async () => {
    const r = await cli(['deliveries', 'replay', serviceId, '--forward-to', s.sink.url, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([expect.objectContaining({ deliveryId: receivedId, replay: 'as-received', status: 200 })]);
    expect(verifies(s.sink.requests.at(-1)!)).toBe(true);
    const re = await cli(['deliveries', 'replay', receivedId, '--mode', 're-signed', '--forward-to', failing.url]);
    expect(re.code).toBe(1);
    expect(re.stdout).toMatch(/replay re-signed to .*: 500/);
    const detail = await client.request('tunnel.delivery', { id: receivedId });
    expect(detail.forwards.map((f) => [f.replay, f.status])).toEqual([
      ['as-received', 200],
      ['re-signed', 500],
    ]);
  });

  it('export: the contract’s ExportDTO, the curl command posting where --url says', async () => {
    const curl = await cli(['deliveries', 'export', serviceId, '--url', 'http://127.0.0.1:3999/hook']);
    expect(curl.code).toBe(0);
    expect(curl.stdout).toMatch(/^curl -sS -X POST/);
    expect(curl.stdout).toContain("'http://127.0.0.1:3999/hook'");
    const fx = await cli(['deliveries', 'export', receivedId, '--format', 'fixture', '--json']);
    expect(fx.json()).toEqual([await client.request('tunnel.export', { id: receivedId, format: 'fixture' })]);
  });

  it('refused: what the companion’s receiver refused, as the contract’s RefusedRequestDTO', async () => {
    const res = await fetch(`${listenUrl}/hooks/${AGENT}`, { method: 'POST', body: '{"unsigned":true}' });
    expect(res.status).toBe(401);
    const r = await cli(['deliveries', 'refused', '--reason', 'missing-signature', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual(await client.request('tunnel.refused', {}));
    const text = await cli(['deliveries', 'refused']);
    expect(text.stdout).toMatch(/Refused — no signature {2}401 {2}POST \/hooks\/agent-connected/);
  });

  it('show prints what a sender wrote with its control characters escaped, never raw', async () => {
    const body =
      '{"event":"message.received","from":"15550100009","message":{"id":"m-esc","type":"text","text":"\u001b]0;owned\u0007\u001b[2J"}}';
    const res = await fetch(`${listenUrl}/hooks/${AGENT}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signDelivery(storedSecrets()[0]!, body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    expect(res.status).toBe(200);
    const [d] = await client.request('tunnel.deliveries', { text: 'm-esc' });
    const r = await cli(['deliveries', 'show', d!.id]);
    expect(r.code, r.stderr).toBe(0);
    for (const raw of ['\u001b', '\u0007']) expect(r.stdout).not.toContain(raw);
    expect(r.stdout).toContain('\\x1b]0;owned\\x07\\x1b[2J');
  });

  const bad: Array<[string, string[], number, RegExp]> = [
    ['show of an unknown id', ['deliveries', 'show', 'd_nope'], 1, /No delivery d_nope/],
    ['show with a bad id', ['deliveries', 'show', '../etc'], 2, /delivery id/],
    ['export with a bad format', ['deliveries', 'export', 'd_x', '--format', 'har'], 2, /curl or fixture/],
    ['an edited body not re-signed', ['deliveries', 'replay', 'd_x', '--body-file', 'x'], 2, /re-signed/],
    ['a bad limit', ['deliveries', 'list', '--limit', '0'], 2, /limit/],
    ['trigger with a bad type', ['trigger', '--agent', AGENT, '--type', 'video'], 2, /text, image or document/],
    ['trigger for an unknown team', ['trigger', '--agent', AGENT, '--team', 'nope'], 2, /no saved team "nope"/],
  ];
  for (const [name, args, code, words] of bad) {
    it(`${name} → exit ${code}, nothing sent`, async () => {
      const before = s.sink.requests.length;
      const r = await cli(args);
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(words);
      expect(r.stdout).toBe('');
      expect(s.sink.requests.length).toBe(before);
    });
  }
});

describe('with no companion running', () => {
  beforeAll(async () => {
    await client.close();
    await hosted!.close();
    hosted = null;
  });

  it('each command starts one for its duration: the same log, the same DTOs; the folder is free again after', async () => {
    const list = await cli(['deliveries', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.json().length).toBeGreaterThanOrEqual(3);
    const first = list.json().find((d) => d.serviceId !== null)!;
    const show = await cli(['deliveries', 'show', first.serviceId as string, '--json']);
    expect(show.json()[0]).toMatchObject({ id: first.id, serviceId: first.serviceId, verdict: 'verified' });
    expect(await readCompanionOwner(dataDir())).toBeNull();

    const before = s.sink.requests.length;
    const t = await cli(['trigger', '--agent', AGENT, '--text', 'no companion', '--forward-to', s.sink.url, '--json']);
    expect(t.code).toBe(0);
    const [delivery, forward] = t.json().map((l) => (l.delivery ?? l.forward) as Record<string, unknown>);
    expect(delivery).toMatchObject({ verdict: 'simulated', preview: 'no companion' });
    expect(forward).toMatchObject({ deliveryId: delivery!.id, status: 200 });
    expect(s.sink.requests.length).toBe(before + 1);
    expect(verifies(s.sink.requests.at(-1)!)).toBe(true);
    const again = await cli(['deliveries', 'list', '--json', '--limit', '1']);
    expect(again.json()).toEqual([delivery]);
    expect(await readCompanionOwner(dataDir())).toBeNull();
  }, 30_000);
});
