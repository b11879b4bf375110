// The contract over HTTP, one implementation for every place that serves it: the browser host (loopback TCP,
// behind its token) and the companion's local endpoint (a Unix socket / named pipe only this user can open).
//   POST /api/<request>     JSON args → Result JSON
//   GET  /api/events        SSE stream of contract events, with heartbeats
// Who may ask is the caller's business (serveContract is given only requests that passed its checks).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRequestName, type Result } from '../../src-shared/contract';
import type { Handlers } from './handlers';
import type { ContractEvents } from './contract';
import { serial } from './serial';

/** An event as the companion's event hub tags it. */
type LocalEvent = Parameters<Parameters<ContractEvents['onAny']>[0]>[0];

const API_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The token of an `Authorization: Bearer <token>` header, or null: the scheme's name in any case (RFC 9110 §11.1),
 * whitespace around it, the token visible ASCII of at most 512 characters. The browser host and the hub both read
 * their callers' tokens with it.
 */
export function bearerToken(authorization: string | undefined): string | null {
  const m = /^bearer[ \t]+([\x21-\x7e]{1,512})$/i.exec((authorization ?? '').trim());
  return m ? m[1]! : null;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...API_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

export function fail(
  res: ServerResponse,
  status: number,
  kind: 'forbidden' | 'validation' | 'not-found' | 'internal',
  code: string,
  message: string,
  extra: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, error: { kind, code, message } } satisfies Result<never>, extra);
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        // Stop keeping it; the rest is read and dropped so the 413 reaches the client.
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface ContractServing {
  /** Serves /api/<request> and /api/events; `path` is the URL's path. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** Ends every open event stream (before the server closes). */
  endStreams(): void;
}

/** One event of a journal: its id is a client's cursor. */
export interface JournalEvent {
  id: number;
  name: string;
  payload: unknown;
}

/**
 * Events kept in order under ids (a team hub's shared events): the stream sends each with `id:`, and a client
 * that comes back with `Last-Event-ID` (or `?after=ID`) gets every one after that id first, then new ones.
 */
export interface EventJournal {
  /**
   * Calls `fn` with every event after `after` (null: after the newest one now) in id order, none twice, then
   * with each new one; `fail` when that cannot go on (the stream then ends, and the client resumes).
   */
  follow(
    after: number | null,
    fn: (e: JournalEvent) => void,
    fail: (e: unknown) => void,
  ): { cursor: number; stop(): void };
}

/** The SSE event a journal's stream opens with: no payload, its `id:` the cursor the stream starts after. */
const CURSOR_EVENT = 'cursor';

/** Where a client resumes: `Last-Event-ID` (an EventSource reconnecting), else `?after=`; null: from now. */
function resumeCursor(req: IncomingMessage): number | null | 'bad' {
  const header = req.headers['last-event-id'];
  const given =
    (typeof header === 'string' && header.trim() !== '' ? header.trim() : null) ??
    new URL(req.url ?? '/', 'http://x').searchParams.get('after');
  if (given === null) return null;
  return /^\d{1,15}$/.test(given) ? Number(given) : 'bad';
}

export interface ContractServingOptions {
  handlers: Handlers;
  events: ContractEvents;
  /** Events served with ids and resumable (a hub's shared events), besides `events` (served without). */
  journal?: EventJournal;
  /**
   * What one stream is told of a local event, when that differs by who asks (a hub tells each member their own
   * unread counts); default: the event as it is. A stream's events keep their order while one is rewritten.
   */
  localEvent?(req: IncomingMessage, e: LocalEvent): LocalEvent | Promise<LocalEvent>;
  /** Whether one stream is told of a journal event (a hub tells a member's own events to that member only); default: yes. */
  journalEvent?(req: IncomingMessage, e: JournalEvent): boolean;
  /** Default 2 MiB. */
  maxBodyBytes?: number;
  /** Default 15 s. */
  heartbeatMs?: number;
  /**
   * With a journal: a stream whose client has not read this many bytes yet is cut (default 8 MiB), so a stalled
   * client (a laptop asleep, a dead connection) holds no backlog here; it resumes from its cursor when back.
   */
  maxUnsentBytes?: number;
}

export function contractServing(opts: ContractServingOptions): ContractServing {
  const maxBody = opts.maxBodyBytes ?? 2 * 1024 * 1024;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxUnsent = opts.maxUnsentBytes ?? 8 * 1024 * 1024;
  const streams = new Set<ServerResponse>();

  function serveEvents(req: IncomingMessage, res: ServerResponse): void {
    const after = opts.journal ? resumeCursor(req) : null;
    if (after === 'bad')
      return fail(res, 400, 'validation', 'BAD_CURSOR', 'Last-Event-ID / after must be an event id (digits).');
    res.writeHead(200, {
      ...API_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    streams.add(res);
    // Events published in one turn of the event loop (the tokens of one chat chunk) leave in one
    // write: one syscall and one chunk for the reader, not one per token.
    let batch = '';
    const flush = (): void => {
      if (batch !== '' && !res.destroyed) res.write(batch);
      batch = '';
      if (opts.journal && res.writableLength > maxUnsent) res.destroy();
    };
    const add = (e: LocalEvent): void => {
      if (batch === '') process.nextTick(flush);
      batch += `event: ${e.name}\ndata: ${JSON.stringify(e.payload)}\n\n`;
    };
    const { localEvent } = opts;
    const inOrder = localEvent ? serial() : null;
    const unsubscribe = opts.events.onAny((e) => {
      if (!inOrder || !localEvent) return add(e);
      void inOrder(async () => add(await Promise.resolve(localEvent(req, e)).catch(() => e)));
    });
    let following: { stop(): void } | null = null;
    if (opts.journal) {
      const { journal } = opts;
      const started = journal.follow(
        after,
        (e) => {
          if (opts.journalEvent && !opts.journalEvent(req, e)) return;
          if (batch === '') process.nextTick(flush);
          batch += `id: ${e.id}\nevent: ${e.name}\ndata: ${JSON.stringify(e.payload)}\n\n`;
        },
        () => {
          flush();
          res.end();
        },
      );
      following = started;
      // The cursor this stream starts after: a client that sees no event before it drops still resumes here.
      res.write(`id: ${started.cursor}\nevent: ${CURSOR_EVENT}\ndata: {}\n\n`);
    }
    const beat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    const stop = (): void => {
      clearInterval(beat);
      unsubscribe();
      following?.stop();
      streams.delete(res);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const name = path.slice('/api/'.length);
    if (name === 'events') {
      if (req.method !== 'GET') return fail(res, 405, 'validation', 'METHOD_NOT_ALLOWED', 'Use GET.', { allow: 'GET' });
      return serveEvents(req, res);
    }
    if (!isRequestName(name)) return fail(res, 404, 'not-found', 'UNKNOWN_REQUEST', 'Unknown request.');
    if (req.method !== 'POST')
      return fail(res, 405, 'validation', 'METHOD_NOT_ALLOWED', 'Use POST.', { allow: 'POST' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      return fail(res, 415, 'validation', 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json.');
    let raw: string;
    try {
      raw = await readBody(req, maxBody);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        req.resume();
        return fail(res, 413, 'validation', 'BODY_TOO_LARGE', 'The request body is too large.', {
          connection: 'close',
        });
      }
      throw e;
    }
    let args: unknown;
    try {
      args = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return fail(res, 400, 'validation', 'BAD_JSON', 'The body is not valid JSON.');
    }
    const handler = opts.handlers[name] as (raw: unknown) => Promise<Result<unknown>>;
    sendJson(res, 200, await handler(args));
  }

  return {
    serve,
    endStreams() {
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}
