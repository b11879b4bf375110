// The hub's deliveries: two `hub` processes on one real Postgres (own data folders) both take the service's
// signed deliveries at <replica>/hooks/<agent>. A delivery is acknowledged only once it is committed in
// Postgres, and a repeat is refused across replicas by the database's constraint (one row, both answered 2xx,
// the second as a duplicate). With Postgres stopped the answer is 503 with Retry-After (nothing acknowledged),
// and the service's retry after it is back is stored. A replica SIGKILLed mid-stream leaves every delivery it
// acknowledged in Postgres. Every replica lists and replays every delivery; a replay and a registration
// record the member who made them.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import type { Spawned } from '../../helpers/spawn-cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, inboundBody, postHook, sqlRows, startHubReplica, stopAll, teamWithHook } from './support';

const AGENT = 'agent-connected';
const PUBLIC_URL = 'https://hub.example.test';
const SECRET_KEY = randomBytes(32).toString('base64');

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { ok?: boolean; duplicate?: boolean; deliveryId?: string; reason?: string };
}

describe('hub deliveries', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let sink: HttpSink;
  let dir: string;
  let token: string;
  let secret: string;
  const replicas: Spawned[] = [];
  let a: string;
  let b: string;
  let bProcess: Spawned;

  const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> =>
    sqlRows<T>(db.url, text, values);
  const call = <T = unknown>(origin: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, token, name, body);
  const startReplica = async (name: string): Promise<{ origin: string; process: Spawned }> => {
    const r = await startHubReplica({ databaseUrl: db.url, secretKey: SECRET_KEY, dir, name, publicUrl: PUBLIC_URL });
    replicas.push(r.proc);
    return { origin: r.origin, process: r.proc };
  };

  /** The service's delivery of one inbound message: the same body on every try, a fresh signature. */
  const post = async (origin: string, messageId: string, text?: string): Promise<Answer> => {
    const res = await postHook(origin, AGENT, secret, inboundBody(messageId, text));
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Answer['body'],
    };
  };
  /** As the service does: tries again until the answer is a 2xx (for up to `timeoutMs`); the last answer. */
  const deliver = async (origin: string, messageId: string, timeoutMs = 30_000): Promise<Answer> => {
    let last: Answer = { status: 0, retryAfter: null, body: {} };
    await waitFor(
      async () => {
        last = await post(origin, messageId).catch((): Answer => ({ status: 0, retryAfter: null, body: {} }));
        return last.status >= 200 && last.status < 300;
      },
      timeoutMs,
      `a 2xx answer to ${messageId}`,
    ).catch(() => undefined);
    return last;
  };
  const rowsOf = (messageId: string) =>
    sql<{ delivery_id: string; replica: string }>(
      'select delivery_id, replica from hub_deliveries where agent_id = $1 and key = $2',
      [AGENT, messageId],
    );

  beforeAll(async () => {
    [db, emu, sink] = await Promise.all([startPostgres(), startTestEmulator(), startHttpSink()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-ingest-'));
    token = await addMember(db.url, 'ada', 'admin');
    a = (await startReplica('a')).origin;
    // Registered through the hub: the secret the service answers is kept by the hub, the URL is the hub's.
    ({ secret } = await teamWithHook(a, token, {
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agentId: AGENT,
      publicUrl: PUBLIC_URL,
    }));
    const second = await startReplica('b');
    b = second.origin;
    bProcess = second.process;
  }, 180_000);

  afterAll(async () => {
    await stopAll(replicas, 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close(), sink?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('the same delivery at both replicas: one row, both answered 2xx, the second as a duplicate; every replica shows it', async () => {
    const id = `wamid.${randomUUID()}`;
    const first = await post(a, id);
    expect(first).toMatchObject({ status: 200, body: { ok: true } });
    expect(first.body.duplicate).toBeUndefined();
    const repeat = await post(b, id);
    expect(repeat).toMatchObject({ status: 200, body: { ok: true, duplicate: true } });
    const rows = await rowsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.delivery_id).toBe(first.body.deliveryId);
    // Its event was published once, in the commit's transaction.
    const events = await sql(
      "select id from hub_events where name = 'tunnel.delivery' and payload->>'messageId' = $1",
      [id],
    );
    expect(events).toHaveLength(1);

    // The replica that did not store it lists it and shows it in full (read from Postgres).
    const listed = await call<Array<{ id: string; messageId: string }>>(b, 'tunnel.deliveries', { agentId: AGENT });
    expect(listed.find((d) => d.messageId === id)?.id).toBe(first.body.deliveryId);
    const detail = await call<{ id: string; rawBody: string; verdict: string }>(b, 'tunnel.delivery', {
      id: first.body.deliveryId,
    });
    expect(detail).toMatchObject({ id: first.body.deliveryId, rawBody: inboundBody(id), verdict: 'verified' });
    const exported = await call<{ content: string }>(b, 'tunnel.export', {
      id: first.body.deliveryId,
      format: 'fixture',
    });
    expect(JSON.parse(exported.content)).toMatchObject({ id: first.body.deliveryId, body: inboundBody(id) });

    // A replay from the other replica sends the stored bytes and records the member who asked for it.
    const replay = await call<{ status: number }>(b, 'tunnel.replay', {
      id: first.body.deliveryId,
      mode: 'as-received',
      url: sink.url,
    });
    expect(replay.status).toBe(200);
    expect(sink.requests.at(-1)?.body.toString('utf8')).toBe(inboundBody(id));
    expect(
      await sql('select member from hub_delivery_replays where delivery_id = $1', [first.body.deliveryId]),
    ).toEqual([{ member: 'ada' }]);
    const shown = await call<{ forwards: Array<{ replay?: string }> }>(a, 'tunnel.delivery', {
      id: first.body.deliveryId,
    });
    expect(shown.forwards.map((f) => f.replay)).toEqual(['as-received']);
    // A text holding a NUL character (which Postgres text and jsonb cannot hold) is stored all the same, its
    // bytes exact.
    const nul = `wamid.${randomUUID()}`;
    const withNul = await post(a, nul, 'a\u0000b');
    expect(withNul).toMatchObject({ status: 200, body: { ok: true } });
    const nulDetail = await call<{ rawBody: string }>(b, 'tunnel.delivery', { id: withNul.body.deliveryId });
    expect(nulDetail.rawBody).toBe(inboundBody(nul, 'a\u0000b'));
    // The registration made in beforeAll is kept with its member and the hub's hook URL.
    expect(await sql('select member, url from hub_webhook_registrations')).toEqual([
      { member: 'ada', url: `${PUBLIC_URL}/hooks/${AGENT}` },
    ]);
  }, 60_000);

  it('Postgres stopped: 503 with Retry-After, nothing acknowledged; the service’s retry after it is back is stored once', async () => {
    const id = `wamid.${randomUUID()}`;
    await db.halt();
    try {
      const refused = await post(a, id);
      expect(refused.status).toBe(503);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(refused.body.ok).toBe(false);
    } finally {
      await db.resume();
    }
    const stored = await deliver(a, id);
    expect(stored).toMatchObject({ status: 200, body: { ok: true } });
    expect(await rowsOf(id)).toHaveLength(1);
  }, 90_000);

  it('a replica SIGKILLed mid-stream: every delivery it acknowledged is in Postgres; the retries of the rest reach the other', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `wamid.kill-${i}-${randomUUID()}`);
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const r = await post(b, id).catch(() => null);
        if (r !== null && r.status === 200) acknowledged.push(id);
        if (!killed && acknowledged.length >= 15) {
          killed = true;
          bProcess.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect((await bProcess.exited).signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(15);
    expect(acknowledged.length).toBeLessThan(ids.length);
    const stored = new Set(
      (await sql<{ key: string }>('select key from hub_deliveries where key = any($1)', [ids])).map((r) => r.key),
    );
    for (const id of acknowledged) expect(stored.has(id), id).toBe(true);
    // The service retries what was not acknowledged; the replica alive takes it.
    for (const id of ids.filter((i) => !acknowledged.includes(i))) {
      expect((await deliver(a, id)).status).toBe(200);
    }
    const all = await sql<{ key: string; n: string }>(
      'select key, count(*) as n from hub_deliveries where key = any($1) group by key',
      [ids],
    );
    expect(all).toHaveLength(ids.length);
    expect(all.every((r) => r.n === '1')).toBe(true);
  }, 120_000);
});
