// The hub-ingest bench's networked-commit floor, in its own process: the least a receiver can do to answer a
// delivery only once it is committed in Postgres, on the same database as the hub. Per POST to /hooks/<agent>:
// check the v1 signature (HMAC-SHA256 over `<t>.<body>`), read the body's message.id (JSON.parse) as the duplicate
// key, and group-commit the row: the deliveries that arrive while a commit runs go together in the next one, one
// prepared multi-row `INSERT … ON CONFLICT (agent_id, key) DO NOTHING` (one statement, so one transaction and one
// flush of the database's log) on a connection of its own; each is answered 200 once that commit is done, as new
// or as a repeat. The row holds what the hub's holds of a delivery (headers, the body's base64). Nothing else: no
// event, no notification, no inbox, no log, no forward, no retry.
import type { ServerResponse } from 'node:http';
import pg from 'pg';
import { z } from 'zod';
import { parseArg } from '../monitor/child-common';
import { serveFloor } from '../support/child-server';

const { database, secret } = parseArg(z.strictObject({ database: z.string().min(1), secret: z.string().min(1) }));

const db = new pg.Client({ connectionString: database });
await db.connect();
await db.query(`create table if not exists bench_commit_floor (
  id bigserial primary key, agent_id text not null, key text not null, received_at timestamptz not null,
  delivery jsonb not null, unique (agent_id, key))`);
const INSERT = {
  name: 'bench-commit-floor',
  text: `insert into bench_commit_floor (agent_id, key, received_at, delivery)
    select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::jsonb[])
    on conflict (agent_id, key) do nothing returning key`,
};

interface Held {
  agentId: string;
  key: string;
  receivedAt: Date;
  delivery: string;
  res: ServerResponse;
}

let waiting: Held[] = [];
let committing = false;

function answer(h: Held, status: number, data: string): void {
  h.res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(data),
  });
  h.res.end(data);
}

/** Commits what waits, in one statement; what arrives meanwhile waits for the next. */
async function commit(): Promise<void> {
  committing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    try {
      const { rows } = await db.query<{ key: string }>({
        ...INSERT,
        values: [
          batch.map((h) => h.agentId),
          batch.map((h) => h.key),
          batch.map((h) => h.receivedAt),
          batch.map((h) => h.delivery),
        ],
      });
      const stored = new Set(rows.map((r) => r.key));
      for (const h of batch) answer(h, 200, `{"ok":true${stored.delete(h.key) ? '' : ',"duplicate":true'}}`);
    } catch {
      for (const h of batch) answer(h, 503, '{"ok":false}');
    }
  }
  committing = false;
}

serveFloor(
  secret,
  (req, res, body) => {
    let key: unknown;
    try {
      key = (JSON.parse(body.toString('utf8')) as { message?: { id?: unknown } }).message?.id;
    } catch {
      // no key: refused below
    }
    if (typeof key !== 'string') {
      res.writeHead(400, { 'content-length': 0 }).end();
      return;
    }
    const receivedAt = new Date();
    const delivery = JSON.stringify({
      receivedAt: receivedAt.getTime(),
      headers: req.headers,
      bodyBase64: body.toString('base64'),
    });
    waiting.push({ agentId: (req.url ?? '').split('/')[2] ?? '', key, receivedAt, delivery, res });
    if (!committing) void commit();
  },
  () => db.end(),
);
