// What every replica of a hub knows of the team's webhooks and inbox, whichever replica did the work: two `hub`
// processes on one real Postgres, each with its own data folder.
// - An agent registered to the hub's public URL through replica B is registered on replica A at once: A's
//   Messages shows no "Not registered here" for it, A's Tunnel screen shows the URL, "registered here" and the
//   history with the member who registered.
// - The inbox follows the committed deliveries: a delivery committed and acknowledged by a replica SIGKILLed
//   before it wrote the inbox (its insert held back by a lock on hub_messages) reaches the inbox all the same.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MessageContactsDTO,
  MessageThreadDTO,
  TunnelStatusDTO,
  WebhookHistoryDTO,
} from '../../../src-shared/contract';
import { silentLogger } from '../../../src-main/core/ports';
import { openHubDatabase } from '../../../src-main/app/hub/database';
import { hubRegistrations } from '../../../src-main/app/hub/registrations';
import type { Emulator } from '../../../src-main/emulator';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import type { Spawned } from '../../helpers/spawn-cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, inboundBody, postHook, startHubReplica, stopAll } from './support';

const AGENT = 'agent-connected';
const PUBLIC_URL = 'https://hub.example.test';
const HOOK = `${PUBLIC_URL}/hooks/${AGENT}`;
const SECRET_KEY = randomBytes(32).toString('base64');
const FROM = '15550102000';

describe('hub registrations and inbox across replicas', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  let token: string;
  let teamId: string;
  const replicas: Spawned[] = [];
  let a: string;
  let b: { origin: string; process: Spawned };

  const call = <T = unknown>(origin: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, token, name, body);

  const startReplica = async (name: string): Promise<{ origin: string; process: Spawned }> => {
    const r = await startHubReplica({ databaseUrl: db.url, secretKey: SECRET_KEY, dir, name, publicUrl: PUBLIC_URL });
    replicas.push(r.proc);
    return { origin: r.origin, process: r.proc };
  };

  beforeAll(async () => {
    [db, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-registrations-'));
    token = await addMember(db.url, 'ada', 'admin');
    [a, b] = await Promise.all([startReplica('a').then((r) => r.origin), startReplica('b')]);
    teamId = (
      await call<{ teamId: string }>(a, 'teams.add', {
        label: 'Support',
        baseUrl: emu.baseUrl,
        apiKey: DEMO_KEY,
        agents: [{ agentId: AGENT }],
      })
    ).teamId;
  }, 180_000);

  afterAll(async () => {
    await stopAll(replicas, 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('registered through replica B: replica A says registered to the hub’s URL (Messages, Tunnel, history)', async () => {
    // Before: not registered anywhere.
    const before = await call<MessageContactsDTO>(a, 'messages.contacts', { teamId });
    expect(before.agents.find((x) => x.agentId === AGENT)?.gap).toBe('not-registered');

    await call(b.origin, 'webhook.register', { teamId, agentId: AGENT, publicUrl: HOOK });

    // Replica A, which never handled the registration: no "Not registered here".
    const agent = await waitFor(
      async () =>
        (await call<MessageContactsDTO>(a, 'messages.contacts', { teamId })).agents.find(
          (x) => x.agentId === AGENT && x.gap !== 'not-registered',
        ),
      20_000,
      "replica A's Messages to see the registration",
    );
    expect(agent.gap).toBeNull();
    expect(agent.reason).toBeNull();

    const status = await call<TunnelStatusDTO>(a, 'tunnel.status');
    const row = status.agents.find((x) => x.agentId === AGENT)!;
    expect(row.publicUrl).toBe(HOOK);
    expect(row.registration.state).toBe('here');
    expect(row.registration.last?.url).toBe(HOOK);

    const history = await call<WebhookHistoryDTO>(a, 'webhook.history', { teamId, agentId: AGENT });
    expect(history.entries.map((e) => [e.url, e.source, e.registeredBy])).toEqual([[HOOK, 'hub', 'ada']]);
  }, 90_000);

  it("a registration through one replica tells the others' receivers to read the agent's secret again", async () => {
    const hubDb = openHubDatabase(db.url);
    const opened = ['r1', 'r2'].map((replica) =>
      hubRegistrations({
        db: hubDb,
        url: db.url,
        replica,
        dataDir: path.join(dir, `reg-${replica}`),
        publicUrl: PUBLIC_URL,
        logger: silentLogger,
      }),
    );
    const told: Record<string, string[]> = { r1: [], r2: [] };
    try {
      for (const [i, r] of opened.entries()) {
        r.onRegisteredElsewhere?.((agentId) => told[`r${i + 1}`]!.push(agentId));
        await r.start();
      }
      await opened[0]!.history.append({ teamId, agentId: 'agent-told', url: HOOK, source: 'cli', target: 'exposure' });
      await waitFor(() => told.r2!.length > 0, 10_000, 'replica r2 told of the registration');
      expect(told.r2).toEqual(['agent-told']);
      // The replica that registered read its own secret already: it is not told again.
      await opened[1]!.history.append({ teamId, agentId: 'agent-back', url: HOOK, source: 'cli', target: 'exposure' });
      await waitFor(() => told.r1!.length > 0, 10_000, 'replica r1 told of the registration');
      expect(told).toEqual({ r1: ['agent-back'], r2: ['agent-told'] });
    } finally {
      for (const r of opened) await r.close();
      await hubDb.destroy();
    }
  }, 60_000);

  it('a delivery committed by a replica killed before its inbox write reaches the inbox', async () => {
    const secret = (await call<{ secret: string }>(a, 'webhook.revealSecret', { teamId, agentId: AGENT })).secret;
    const messageId = `wamid.${randomUUID()}`;
    const body = inboundBody(messageId, `hello ${messageId}`, FROM);
    // Inserts into the inbox wait while this transaction holds the table (reads go on).
    const lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('lock table hub_messages in share mode');
      const res = await postHook(b.origin, AGENT, secret, body);
      expect(res.status).toBe(200);
      // Replica B's inbox write has begun and waits on the lock: B dies there.
      await waitFor(
        async () =>
          (
            await lock.query<{ n: string }>(
              "select count(*) as n from pg_locks where not granted and relation = 'hub_messages'::regclass",
            )
          ).rows[0]!.n !== '0',
        20_000,
        "replica B's inbox write to wait",
      );
      b.process.child.kill('SIGKILL');
      expect((await b.process.exited).signal).toBe('SIGKILL');
    } finally {
      await lock.query('rollback').catch(() => undefined);
      await lock.end();
    }
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    const committed = await check
      .query<{ n: string }>('select count(*) as n from hub_deliveries where key = $1', [messageId])
      .finally(() => check.end());
    expect(committed.rows[0]!.n).toBe('1');

    // A replica started now (its own data folder: its log never saw the delivery) catches up with it; the inbox
    // every replica reads then holds it once.
    const c = (await startReplica('c')).origin;
    for (const origin of [c, a]) {
      const thread = await waitFor(
        async () => {
          const t = await call<MessageThreadDTO>(origin, 'messages.thread', { teamId, agentId: AGENT, phone: FROM });
          return t.messages.some((m) => m.text === `hello ${messageId}`) ? t : null;
        },
        40_000,
        'the message in the inbox',
      );
      expect(thread.messages.filter((m) => m.text === `hello ${messageId}`)).toHaveLength(1);
    }
  }, 120_000);
});
