// The tunnel bench's floor, in its own process: the least a tunnel can do for one delivery, to read
// the target against. Per POST: check the v1 signature (HMAC-SHA256 over `<t>.<body>`), append one
// JSON line (headers and base64 body) to a file with write(2), and, with `sync`, group-commit an
// fdatasync (one at a time in the thread pool; what arrives meanwhile shares the next one) before the
// 200; then forward the body to the local app over a keep-alive agent, as the proxy does. Nothing
// else: no duplicate check, no index, no ordering, no record of the forward, no retry, no rotation.
// With `sync: false` the 200 follows the write alone (the page cache: lost in a machine crash).
// With `duties: true` it also does, as plainly as it can, the two things a tunnel must do beyond that
// for a delivery to be neither lost nor forwarded twice: a duplicate check (the body's message.id,
// parsed with JSON.parse, claimed per agent in a Map kept for the tunnel's default duplicate window) and a record of
// each forward's answer (a JSON line written with the next write, not waited for). Still no index,
// no ordering, no retry, no rotation.
import { closeSync, fdatasync, openSync, writeSync } from 'node:fs';
import { Agent, request, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_DUPLICATE_WINDOW_MS } from '../../../src-main/core/tunnel/seen';
import { parseArg } from '../monitor/child-common';
import { serveFloor } from '../support/child-server';

const {
  target,
  dataDir,
  secret,
  sync,
  duties = false,
} = parseArg(
  z.strictObject({
    target: z.string().url(),
    dataDir: z.string().min(1),
    secret: z.string().min(1),
    sync: z.boolean(),
    duties: z.boolean().optional(),
  }),
);
const app = new URL(target);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const fd = openSync(join(dataDir, `floor-${sync ? 'sync' : 'nosync'}.jsonl`), 'a', 0o600);
/** With duties: per agent, message id → when first seen (insertion order is time order). */
const seen = new Map<string, Map<string, number>>();

/** With duties: claims the message id for the agent; false when it was seen within the window. */
function claim(agentId: string, body: Buffer, now: number): boolean {
  let id: unknown;
  try {
    id = (JSON.parse(body.toString('utf8')) as { message?: { id?: unknown } }).message?.id;
  } catch {
    return true;
  }
  if (typeof id !== 'string') return true;
  let ids = seen.get(agentId);
  if (!ids) seen.set(agentId, (ids = new Map()));
  else if (ids.has(id)) return false;
  for (const [old, at] of ids) {
    if (at > now - DEFAULT_DUPLICATE_WINDOW_MS) break;
    ids.delete(old);
  }
  ids.set(id, now);
  return true;
}

interface Held {
  id: string;
  res: ServerResponse;
  headers: Record<string, string>;
  body: Buffer;
}

/** Lines written and not yet answered; the deliveries the running sync covers. */
let lines: Buffer[] = [];
let held: Held[] = [];
let syncing = false;
let flushSoon = false;
let seq = 0;

function forward(h: Held): void {
  const started = duties ? Date.now() : 0;
  const out = request(
    {
      host: app.hostname,
      port: app.port,
      path: '/webhook',
      method: 'POST',
      agent,
      headers: { ...h.headers, 'content-length': h.body.length },
    },
    (r) => {
      r.resume();
      if (duties) {
        const at = Date.now();
        const line = { kind: 'attempt', deliveryId: h.id, at, status: r.statusCode, durationMs: at - started };
        lines.push(Buffer.from(`${JSON.stringify(line)}\n`));
      }
    },
  );
  out.on('error', () => undefined);
  out.end(h.body);
}

function answer(batch: Held[]): void {
  for (const h of batch) {
    const data = `{"ok":true,"deliveryId":"${h.id}"}`;
    h.res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(data),
    });
    h.res.end(data);
    forward(h);
  }
}

/** Writes what arrived; with sync, one fdatasync covers it, and what arrives meanwhile waits for the next. */
function flush(): void {
  flushSoon = false;
  if (syncing || held.length === 0) return;
  const batch = held;
  const buf = Buffer.concat(lines);
  held = [];
  lines = [];
  writeSync(fd, buf);
  if (!sync) return answer(batch);
  syncing = true;
  fdatasync(fd, (err) => {
    syncing = false;
    if (err) throw err;
    flush();
    answer(batch);
  });
}

serveFloor(
  secret,
  (req, res, body, v1) => {
    const receivedAt = Date.now();
    if (duties && !claim(req.url ?? '', body, receivedAt)) {
      res.writeHead(200, { 'content-length': 0 }).end();
      return;
    }
    const id = `d${++seq}`;
    const headers = {
      'content-type': String(req.headers['content-type'] ?? 'application/json'),
      'x-service-signature-v1': v1,
    };
    lines.push(
      Buffer.from(`${JSON.stringify({ id, receivedAt, headers: req.headers, bodyBase64: body.toString('base64') })}\n`),
    );
    held.push({ id, res, headers, body });
    // One turn of the event loop first: the deliveries read in one poll share one write.
    if (!flushSoon) {
      flushSoon = true;
      setImmediate(flush);
    }
  },
  () => closeSync(fd),
);
