// The event stream with a journal (a hub's shared events): each event carries its id, the stream opens with
// its cursor, a client resumes with Last-Event-ID or ?after= (a cursor that is not digits: 400), and a client
// that stops reading is cut once its backlog passes the bound instead of being kept in memory.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Emitter } from '../../../src-main/core/events';
import type { Events } from '../../../src-shared/contract';
import type { Handlers } from '../../../src-main/app/handlers';
import { contractServing, type EventJournal, type JournalEvent } from '../../../src-main/app/contract-http';

/** Waits for what crosses processes, sockets and the database: generous on a loaded machine. */
const SLOW = { timeout: 10_000 };

interface Fake extends EventJournal {
  /** The `after` of each follow, in order. */
  asked: (number | null)[];
  /** The followers still following. */
  live: Set<(e: JournalEvent) => void>;
  emit(e: JournalEvent): void;
}

function fakeJournal(head: number): Fake {
  const live = new Set<(e: JournalEvent) => void>();
  const asked: (number | null)[] = [];
  return {
    asked,
    live,
    emit: (e) => live.forEach((fn) => fn(e)),
    follow(after, fn) {
      asked.push(after);
      live.add(fn);
      return { cursor: after ?? head, stop: () => live.delete(fn) };
    },
  };
}

describe('contract-http event stream with a journal', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0))
      await new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      });
  });

  async function serve(journal: Fake, maxUnsentBytes?: number): Promise<string> {
    const local = new Emitter<Events>();
    const api = contractServing({
      handlers: {} as Handlers,
      events: local,
      journal,
      ...(maxUnsentBytes !== undefined ? { maxUnsentBytes } : {}),
    });
    const server = createServer((req, res) => void api.serve(req, res, (req.url ?? '/').split('?')[0]!));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('opens with its cursor, sends each event with its id, and resumes where the client says', async () => {
    const journal = fakeJournal(10);
    const origin = await serve(journal);
    const fresh = await request(`${origin}/api/events`);
    const text: string[] = [];
    fresh.body.on('data', (c: Buffer) => text.push(c.toString('utf8')));
    await expect.poll(() => journal.live.size, SLOW).toBe(1);
    journal.emit({ id: 11, name: 'alert', payload: { n: 1 } });
    await expect
      .poll(() => text.join(''), SLOW)
      .toContain('id: 10\nevent: cursor\ndata: {}\n\nid: 11\nevent: alert\ndata: {"n":1}\n\n');
    fresh.body.destroy();

    const byHeader = await request(`${origin}/api/events`, { headers: { 'last-event-id': '7' } });
    const byQuery = await request(`${origin}/api/events?after=5`);
    expect([byHeader.statusCode, byQuery.statusCode]).toEqual([200, 200]);
    expect(journal.asked).toEqual([null, 7, 5]);
    byHeader.body.destroy();
    byQuery.body.destroy();

    const bad = await request(`${origin}/api/events?after=1;drop`);
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as { error: { code: string } }).error.code).toBe('BAD_CURSOR');
    expect(journal.asked).toHaveLength(3);
  });

  it('a client that stops reading is cut once its backlog passes the bound (it resumes from its cursor)', async () => {
    const journal = fakeJournal(0);
    const origin = await serve(journal, 256 * 1024);
    const u = new URL(origin);
    // A client that sends its request and never reads again.
    const socket = connect(Number(u.port), u.hostname);
    socket.write(`GET /api/events HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
    socket.pause();
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    await expect.poll(() => journal.live.size, SLOW).toBe(1);
    const big = 'x'.repeat(64 * 1024);
    let sent = 0;
    for (let id = 1; journal.live.size > 0 && sent < 256 * 1024 * 1024; id++) {
      journal.emit({ id, name: 'alert', payload: { big } });
      sent += big.length;
      // Each turn of the event loop flushes the batch (and checks the backlog).
      await new Promise((r) => setImmediate(r));
    }
    // Cut long before the bytes emitted ran out: the kernel's buffers plus the bound, not everything.
    expect(journal.live.size).toBe(0);
    expect(sent).toBeLessThan(128 * 1024 * 1024);
    socket.resume();
    await closed;
  });
});
