// A member's role changed while their windows are connected reaches them at once, on every replica: `hub member
// set-role` publishes a `hub.role` event with the change (one transaction), every replica serves it to that
// member's streams only, and a window connected through replica B reads the role again (hub.status) and its next
// request is judged by the new role. A member removed: their streams on every replica hear it and end, and their
// token is refused. Two `hub` processes on a real Postgres.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src-main/app/handlers';
import { hubSwitchable } from '../../../src-main/app/hub-connection';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import type { AnyEvent } from '../../../src-shared/contract';
import { runCli } from '../../helpers/cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  localContract,
  sqlRows,
  startHubReplica,
  stopAll,
  type HeardEvent,
  type HubReplica,
} from './support';

interface Stream {
  heard: HeardEvent[];
  /** The hub ended the stream. */
  ended: boolean;
  close(): void;
}

/** A member's event stream on a replica: what it carries, and whether the hub ended it. */
async function openStream(origin: string, token: string): Promise<Stream> {
  const stop = new AbortController();
  const res = await fetch(`${origin}/api/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  const s: Stream = { heard: [], ended: false, close: () => stop.abort() };
  const parser = createParser({
    onEvent: (ev) => s.heard.push({ name: ev.event ?? 'message', id: ev.id ?? null, data: JSON.parse(ev.data) }),
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
    s.ended = true;
  })().catch(() => undefined);
  return s;
}

/** A request as a member: the HTTP status and the error code, if any. */
async function statusOf(origin: string, token: string, name: string, body: unknown): Promise<[number, string | null]> {
  const res = await fetch(`${origin}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const r = (await res.json()) as { ok: boolean; error?: { code: string } };
  return [res.status, r.ok ? null : (r.error?.code ?? null)];
}

const roleEvents = (s: Stream) => s.heard.filter((h) => h.name === 'hub.role').map((h) => h.data);

describe('a role changed while connected reaches the member’s clients on every replica', () => {
  let db: TestPostgres;
  let dir: string;
  let a: HubReplica;
  let b: HubReplica;
  const tokens: Record<string, string> = {};
  const streams: Stream[] = [];
  const cli = (...args: string[]) => runCli(['hub', 'member', ...args], { env: { DATABASE_URL: db.url } });
  const stream = async (r: HubReplica, who: string) => {
    const s = await openStream(r.origin, tokens[who]!);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    db = await startPostgres();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-role-event-'));
    tokens.vic = await addMember(db.url, 'vic', 'viewer');
    tokens.olga = await addMember(db.url, 'olga', 'viewer');
    const secretKey = randomBytes(32).toString('base64');
    const start = (name: string) => startHubReplica({ databaseUrl: db.url, secretKey, dir, name, readyMs: 90_000 });
    [a, b] = await Promise.all([start('a'), start('b')]);
  }, 180_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await stopAll([a?.proc, b?.proc].filter((p) => p !== undefined));
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('set-role: the member’s streams on both replicas hear it (no one else’s), the window re-reads its role', async () => {
    const windows = await hubSwitchable(localContract(), {
      configDir: path.join(dir, 'vic-desktop'),
      secrets: new MemorySecretStore(),
    });
    const told: AnyEvent[] = [];
    windows.events.onAny((e) => told.push(e));
    const h = createHandlers(windows.implementations);
    expect(await h['hub.connect']({ url: b.origin, token: tokens.vic! })).toMatchObject({
      ok: true,
      value: { member: 'vic', role: 'viewer' },
    });
    const [vicOnA, vicOnB, olgaOnB] = await Promise.all([stream(a, 'vic'), stream(b, 'vic'), stream(b, 'olga')]);
    const ack = { incidentId: 'none' };
    expect(await statusOf(b.origin, tokens.vic!, 'alerts.acknowledge', ack)).toEqual([403, 'ROLE_FORBIDDEN']);

    const r = await cli('set-role', 'vic', '--role', 'on-call', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()[0]).toMatchObject({ name: 'vic', role: 'on-call', previous: 'viewer' });

    // The change is an event with an id (resumable on any replica) on vic's streams on A and on B.
    for (const s of [vicOnA, vicOnB]) {
      const heard = await waitFor(() => s.heard.find((e) => e.name === 'hub.role'), 15_000, 'hub.role on a stream');
      expect(heard.data).toEqual({ member: 'vic', role: 'on-call' });
      expect(heard.id).toMatch(/^\d+$/);
    }
    // The window was told, after hub.status says the new role (no refusal needed, no reconnect).
    await waitFor(() => told.some((e) => e.name === 'hub.role'), 15_000, 'hub.role told to the window');
    expect(await h['hub.status']({})).toMatchObject({ ok: true, value: { member: 'vic', role: 'on-call' } });
    // The next request through B is judged by the new role: past the role check (the incident is unknown).
    const [status, code] = await statusOf(b.origin, tokens.vic!, 'alerts.acknowledge', ack);
    expect(status).not.toBe(403);
    expect(code).not.toBe('ROLE_FORBIDDEN');
    // Olga's stream was not told of vic's change (an event published after it is, so it would have come first).
    await cli('set-role', 'olga', '--role', 'developer');
    await waitFor(() => roleEvents(olgaOnB).length > 0, 15_000, "olga's own hub.role");
    expect(roleEvents(olgaOnB)).toEqual([{ member: 'olga', role: 'developer' }]);
    expect(roleEvents(vicOnB)).toEqual([{ member: 'vic', role: 'on-call' }]);
    // Recorded in the team's activity.
    expect(await sqlRows(db.url, "select subject from hub_audit where action = 'member.role' order by id")).toEqual([
      { subject: 'vic (viewer → on-call)' },
      { subject: 'olga (viewer → developer)' },
    ]);
    windows.dispose();
  }, 60_000);

  it('set-role refuses a bad role (nothing changes) and a member who is not there', async () => {
    const bad = await cli('set-role', 'olga', '--role', 'owner');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected one of viewer, developer, on-call, admin');
    const none = await cli('set-role', 'nobody', '--role', 'admin', '--json');
    expect(none.code).toBe(1);
    expect(none.stdout + none.stderr).toContain('no member is named nobody');
    const [row] = await sqlRows<{ role: string }>(db.url, "select role from hub_members where name = 'olga'");
    expect(row!.role).toBe('developer');
  }, 30_000);

  it('a member removed: their streams on both replicas hear it and end; their token is refused', async () => {
    const [olgaOnA, olgaOnB, vicOnA] = await Promise.all([stream(a, 'olga'), stream(b, 'olga'), stream(a, 'vic')]);
    const r = await cli('remove', 'olga');
    expect(r.code, r.stderr).toBe(0);
    for (const s of [olgaOnA, olgaOnB]) {
      await waitFor(() => s.ended, 15_000, "olga's stream ended");
      expect(roleEvents(s)).toEqual([{ member: 'olga', role: null }]);
    }
    expect(await statusOf(a.origin, tokens.olga!, 'teams.list', {})).toEqual([401, 'BAD_TOKEN']);
    expect(await statusOf(b.origin, tokens.olga!, 'teams.list', {})).toEqual([401, 'BAD_TOKEN']);
    // Vic's stream stays open and is not told of olga's removal.
    expect(vicOnA.ended).toBe(false);
    expect(roleEvents(vicOnA)).toEqual([]);
  }, 30_000);
});
