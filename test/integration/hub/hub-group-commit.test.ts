// The hub's durable commit of deliveries on a real Postgres: deliveries that arrive together are committed in
// shared transactions (group commit), each still answered by its own row — new, or a repeat of a key the
// database holds (also one taken in the same transaction) — with one tunnel.delivery event per new row, in the
// order the deliveries came. A group holds a bounded number of bytes. A delivery the database refuses fails alone;
// the others of its group are stored. Both on the pool's connections and on the ingest's own (given the database's
// URL, as a replica runs it), which a restart of the database does not leave broken.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredDelivery } from '../../../src-main/core/tunnel';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { hubDeliveries as deliveriesOf } from '../../../src-main/app/hub/deliveries';
import { startPostgres, type TestPostgres } from './postgres';

const AGENT = 'agent-group';

function delivery(id: string, messageId: string): StoredDelivery {
  const body = JSON.stringify({ event: 'message.received', from: '1555', message: { id: messageId, type: 'text' } });
  return {
    kind: 'delivery',
    id,
    agentId: AGENT,
    receivedAt: 1_750_000_000_000,
    method: 'POST',
    path: `/hooks/${AGENT}`,
    headers: { 'content-type': 'application/json' },
    bodyBase64: Buffer.from(body).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: { event: 'message.received', from: '1555', messageId, type: 'text' },
    forward: false,
  };
}

describe.each([
  ['on the pool', false],
  ['on a connection of its own', true],
])('hub deliveries: group commit %s', (_where, own) => {
  let pg: TestPostgres;
  let db: HubDatabase;
  const opened: { close(): Promise<void> }[] = [];
  const hubDeliveries = (replica: string) => {
    const d = deliveriesOf(db, replica, own ? pg.url : undefined);
    opened.push(d);
    // The receiver hands on the delivery's JSON with it (the record its log then writes).
    return { commit: (x: StoredDelivery, key: string) => d.commit(x, key, JSON.stringify(x)) };
  };

  beforeAll(async () => {
    pg = await startPostgres();
    db = openHubDatabase(pg.url);
    await migrateHub(db);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
    await db?.destroy();
    await pg?.stop();
  });

  /** The newest transaction id: every transaction that writes takes the next one (this read takes one too). */
  const xid = async (): Promise<number> =>
    Number((await sql<{ x: string }>`select txid_current() as x`.execute(db)).rows[0]!.x);

  it('commits deliveries that arrive together in shared transactions, each answered by its own row', async () => {
    const { commit } = hubDeliveries('replica-a');
    await commit(delivery('d-held', 'm-held'), 'm-held');
    const before = await xid();
    const n = 40;
    const list = Array.from({ length: n }, (_, i) => delivery(`d${i}`, `m${i}`));
    // A repeat of a key the database holds, and a key taken twice in the same group.
    list.push(delivery('d-held-again', 'm-held'), delivery('d5-again', 'm5'));
    const answers = await Promise.all(list.map((d) => commit(d, d.summary.messageId!)));
    const transactions = (await xid()) - before - 1;

    expect(answers.slice(0, n)).toEqual(Array.from({ length: n }, () => 'stored'));
    expect(answers.slice(n)).toEqual(['duplicate', 'duplicate']);
    // One transaction each would be 42.
    expect(transactions).toBeLessThan(n / 2);

    const rows = await db
      .selectFrom('hub_deliveries')
      .select(['delivery_id', 'key'])
      .where('agent_id', '=', AGENT)
      .execute();
    expect(rows).toHaveLength(n + 1);
    expect(rows.find((r) => r.key === 'm5')?.delivery_id).toBe('d5');
    const events = await db
      .selectFrom('hub_events')
      .select(['id', 'payload'])
      .where('name', '=', 'tunnel.delivery')
      .orderBy('id')
      .execute();
    // One event per new row, in the order the deliveries came.
    expect(events.map((e) => (e.payload as { id: string }).id)).toEqual([
      'd-held',
      ...list.slice(0, n).map((d) => d.id),
    ]);
  });

  it('large deliveries are not all put in one statement: a group holds 8 MB of bodies at most', async () => {
    const { commit } = hubDeliveries('replica-c');
    const big = (i: number): StoredDelivery => ({
      ...delivery(`big${i}`, `big${i}`),
      bodyBase64: Buffer.alloc(3.5 * 1024 * 1024, i).toString('base64'),
    });
    const before = await xid();
    const answers = await Promise.all([0, 1, 2].map((i) => commit(big(i), `big${i}`)));
    expect(answers).toEqual(['stored', 'stored', 'stored']);
    // The first alone (nothing waited), then 4.7 MB each in base64: the two that waited do not fit in one group.
    expect((await xid()) - before - 1).toBe(3);
  });

  it('a delivery the database refuses fails alone; the others of its group are stored', async () => {
    const { commit } = hubDeliveries('replica-b');
    // Its delivery id is taken already (under another key): the database refuses the row.
    const refused = delivery('d1', 'm-new-key');
    const others = Array.from({ length: 10 }, (_, i) => delivery(`e${i}`, `n${i}`));
    const answers = await Promise.allSettled(
      [...others.slice(0, 5), refused, ...others.slice(5)].map((d) => commit(d, d.summary.messageId!)),
    );
    const refusedAnswer = answers[5]!;
    expect(refusedAnswer.status).toBe('rejected');
    expect(String((refusedAnswer as PromiseRejectedResult).reason)).toMatch(/did not take the delivery/);
    expect(answers.filter((a, i) => i !== 5).map((a) => a.status)).toEqual(
      Array.from({ length: 10 }, () => 'fulfilled'),
    );
    const stored = await db
      .selectFrom('hub_deliveries')
      .select('delivery_id')
      .where(
        'delivery_id',
        'in',
        others.map((d) => d.id),
      )
      .execute();
    expect(stored).toHaveLength(10);
  });

  it('a database that restarts fails the deliveries meanwhile; the next ones are stored', async () => {
    const { commit } = hubDeliveries('replica-d');
    expect(await commit(delivery('r1', 'r1'), 'r1')).toBe('stored');
    await pg.halt();
    await expect(commit(delivery('r2', 'r2'), 'r2')).rejects.toThrow(/did not take the delivery/);
    await pg.resume();
    expect(await commit(delivery('r3', 'r3'), 'r3')).toBe('stored');
    expect(await commit(delivery('r2', 'r2'), 'r2')).toBe('stored');
  }, 60_000);

  it('deliveries that keep arriving while the database is away each fail, and the process stays up', async () => {
    const { commit } = hubDeliveries('replica-e');
    expect(await commit(delivery('s0', 's0'), 's0')).toBe('stored');
    await pg.halt();
    try {
      // Connections tried one after another and together, each refused: none may leave a rejection unhandled
      // (it would end the replica's process), every delivery is refused.
      for (let i = 1; i <= 20; i++) {
        const answers = await Promise.allSettled(
          [0, 1, 2].map((j) => commit(delivery(`s${i}-${j}`, `s${i}-${j}`), `s${i}-${j}`)),
        );
        expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected', 'rejected']);
      }
      // A turn of the loop for refusals still on their way (an unhandled one fails the run whenever it comes).
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await pg.resume();
    }
    expect(await commit(delivery('s21', 's21'), 's21')).toBe('stored');
  }, 60_000);
});
