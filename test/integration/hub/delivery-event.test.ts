// A hub's `tunnel.delivery` event carries a small delivery whole (its headers and body as `tunnel.delivery` answers
// them), so a `listen --forward-to` forwards it without asking the hub for it; a larger one carries only its
// summary and is asked for. Either way the listener's app gets the delivery's original bytes, and the listener's
// printed delivery line holds no body.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import { spawnCli, type Spawned } from '../../helpers/spawn-cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, inboundBody, memberStream, postHook, startHubReplica, stopAll } from './support';

const AGENT = 'agent-connected';
const PUBLIC_URL = 'https://hub.example.test';

interface DeliveryEvent {
  messageId: string | null;
  request?: { headers: Record<string, string>; rawBody: string };
}

describe("a hub's delivery events", () => {
  let db: TestPostgres;
  let emu: Emulator;
  let sink: HttpSink;
  let dir: string;
  let token: string;
  let secret: string;
  let origin: string;
  const procs: Spawned[] = [];

  beforeAll(async () => {
    [db, emu, sink] = await Promise.all([startPostgres(), startTestEmulator(), startHttpSink()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-delivery-event-'));
    token = await addMember(db.url, 'ada', 'admin');
    const r = await startHubReplica({
      databaseUrl: db.url,
      secretKey: randomBytes(32).toString('base64'),
      dir,
      name: 'a',
      publicUrl: PUBLIC_URL,
    });
    procs.push(r.proc);
    origin = r.origin;
    const team = await hubCall<{ teamId: string }>(origin, token, 'teams.add', {
      label: 'Support',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: AGENT }],
    });
    await hubCall(origin, token, 'webhook.register', {
      teamId: team.teamId,
      agentId: AGENT,
      publicUrl: `${PUBLIC_URL}/hooks/${AGENT}`,
    });
    secret = (
      await hubCall<{ secret: string }>(origin, token, 'webhook.revealSecret', { teamId: team.teamId, agentId: AGENT })
    ).secret;
  }, 180_000);

  afterAll(async () => {
    await stopAll(procs, 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close(), sink?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a small delivery goes whole with its event, a large one as its summary; a listener forwards both byte for byte', async () => {
    const stream = await memberStream(origin, token);
    const listen = spawnCli(['listen', '--forward-to', sink.url, '--json'], {
      CHANNEL_HUB_URL: origin,
      CHANNEL_HUB_TOKEN: token,
      CHANNEL_COMPANION_HOME: path.join(dir, 'laptop'),
    });
    procs.push(listen);
    try {
      await waitFor(() => listen.stdout().includes('"event":"ready"'), 90_000, 'the listener ready');
      const small = inboundBody('wamid_small_1', 'a short message');
      const large = inboundBody('wamid_large_1', 'x'.repeat(6_000));
      for (const body of [small, large]) expect((await postHook(origin, AGENT, secret, body)).status).toBe(200);

      const eventOf = (messageId: string): DeliveryEvent | undefined =>
        stream.heard.find((e) => e.name === 'tunnel.delivery' && (e.data as DeliveryEvent).messageId === messageId)
          ?.data as DeliveryEvent | undefined;
      await waitFor(() => eventOf('wamid_large_1') !== undefined, 15_000, 'both events');
      const whole = eventOf('wamid_small_1')!.request!;
      expect(whole.rawBody).toBe(small);
      expect(Object.keys(whole.headers)).toEqual(expect.arrayContaining(['content-type']));
      expect(eventOf('wamid_large_1')!.request).toBeUndefined();

      await waitFor(() => sink.requests.length >= 2, 30_000, 'both forwarded');
      expect(sink.requests.map((q) => q.body.toString('utf8'))).toEqual([small, large]);
      // The listener prints each delivery as it is listed: no body in its line.
      expect(listen.stdout()).toContain('"event":"delivery"');
      expect(listen.stdout()).not.toContain('"rawBody"');
    } finally {
      stream.close();
    }
  }, 180_000);
});
