// Two hub processes on one Postgres poll a team's agents as one: each agent once per interval (counted at
// the service, an emulator behind a counting proxy, at a 1 s interval), a SIGKILLed replica's agents
// polled by the other within two intervals; an agent that goes unlinked opens one incident and one
// Alertmanager alert across both (a stand-in Alertmanager counts them), and the incident goes on, same
// id and start, on the replica that takes the agent over; an acknowledgement made through one replica
// shows who made it on the other; SIGTERM drains (/readyz 503 at once, the leases given back).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import type { Emulator } from '../../../src-main/emulator';
import type { IncidentDTO } from '../../../src-shared/contract';
import { control, startTestEmulator } from '../../helpers/emulator';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  hubCall,
  memberStream,
  serviceProxy,
  startHubReplica,
  type HubReplica,
  type ServiceProxy,
} from './support';

const INTERVAL_MS = 1_000;
const API_KEY = 'hub-leases-test-key-0001';
const AGENTS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];

describe('hub replicas share the polling', () => {
  let pg: TestPostgres;
  let db: HubDatabase;
  let emu: Emulator;
  let proxy: ServiceProxy;
  let alertmanager: HttpSink;
  let dir: string;
  const key = randomBytes(32).toString('base64');
  const tokens: Record<string, string> = {};
  const replicas: HubReplica[] = [];
  const streams: Array<{ close(): void }> = [];
  let incidentId = '';
  let openedAt = 0;

  const member = async (name: string, role: string): Promise<string> =>
    (tokens[name] = await addMember(pg.url, name, role));
  const call = <T = unknown>(origin: string, name: string, token: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, token, name, body);
  const startReplica = async (name: string): Promise<HubReplica> => {
    const r = await startHubReplica({
      databaseUrl: pg.url,
      secretKey: key,
      dir,
      name,
      pollSec: INTERVAL_MS / 1000,
      args: ['--log-format', 'json'],
    });
    replicas.push(r);
    return r;
  };
  const leases = async (): Promise<Map<string, string[]>> => {
    const rows = await db.selectFrom('hub_leases').select(['holder', 'agent_id']).execute();
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.holder, [...(by.get(r.holder) ?? []), r.agent_id].sort());
    return by;
  };
  /** Polls of each agent that arrived in [from, to). */
  const pollsBetween = (from: number, to: number) =>
    new Map(AGENTS.map((a) => [a, (proxy.polls.get(a) ?? []).filter((t) => t >= from && t < to)]));
  /** The firing alerts Alertmanager received about an agent: their label sets and incident ids. */
  const firing = (agent: string) => {
    const alerts = alertmanager.requests.flatMap(
      (r) =>
        JSON.parse(r.body.toString('utf8')) as Array<{
          labels: Record<string, string>;
          annotations: Record<string, string>;
          endsAt?: string;
        }>,
    );
    const about = alerts.filter((a) => a.labels.agent === agent);
    return {
      labelSets: new Set(about.map((a) => JSON.stringify(a.labels))),
      incidents: new Set(about.map((a) => a.annotations.incident_id)),
    };
  };

  beforeAll(async () => {
    pg = await startPostgres();
    db = openHubDatabase(pg.url);
    emu = await startTestEmulator({
      seed: {
        teams: [
          {
            id: 'hub-team',
            apiKey: API_KEY,
            agents: AGENTS.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555020000${i}` })),
          },
        ],
      },
    });
    proxy = await serviceProxy(emu.baseUrl);
    alertmanager = await startHttpSink();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-leases-'));
    await member('ada', 'admin');
    await member('bob', 'on-call');
    await member('vic', 'viewer');
  }, 90_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    for (const r of replicas)
      if (r.proc.child.exitCode === null && r.proc.child.signalCode === null) r.proc.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.proc.exited));
    // No replica's log holds the secret key, the team's API key or a member's token; every line is JSON.
    for (const r of replicas) {
      const text = r.proc.stderr();
      for (const secret of [key, API_KEY, ...Object.values(tokens)]) expect(text).not.toContain(secret);
      for (const line of text.split('\n').filter((l) => l.trim() !== ''))
        expect(JSON.parse(line)).toMatchObject({
          level: expect.any(String),
          msg: expect.any(String),
          replica: r.replica,
        });
    }
    await db?.destroy();
    await proxy?.close();
    await alertmanager?.close();
    await emu?.close();
    await pg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('two replicas split the agents; each agent is polled once per interval', async () => {
    const a = await startReplica('a');
    await call(a.origin, 'teams.add', tokens.ada!, {
      label: 'Support',
      baseUrl: proxy.url,
      apiKey: API_KEY,
      agents: AGENTS.map((agentId) => ({ agentId })),
    });
    await call(a.origin, 'settings.update', tokens.ada!, {
      patch: { alertmanagerUrl: alertmanager.url.replace(/\/hook$/, '/') },
    });
    const b = await startReplica('b');
    // Both hold a share: three agents each.
    await waitFor(
      async () => {
        const by = await leases();
        return by.get(a.replica)?.length === 3 && by.get(b.replica)?.length === 3;
      },
      20_000,
      'the agents spread over both replicas',
    );
    const from = Date.now() + 500;
    await new Promise((r) => setTimeout(r, 500 + 8 * INTERVAL_MS));
    const windowed = pollsBetween(from, from + 8 * INTERVAL_MS);
    // 8 intervals: 8 polls each (the jitter only shortens an interval, by up to 10 %, and polls due
    // together may start up to 250 ms early); both replicas polling an agent would double it.
    for (const [agent, times] of windowed) {
      expect(times.length, agent).toBeGreaterThanOrEqual(7);
      expect(times.length, agent).toBeLessThanOrEqual(11);
    }
    // The replica's own metrics say what it holds.
    const metrics = await (
      await fetch(`${a.origin}/metrics`, { headers: { authorization: `Bearer ${tokens.vic}` } })
    ).text();
    expect(metrics).toMatch(/channel_companion_hub_leases_held 3\b/);
    expect(metrics).toMatch(/channel_companion_hub_queue_depth \d+/);
    expect((await fetch(`${a.origin}/metrics`)).status).toBe(401);
  }, 120_000);

  it('an agent that goes unlinked opens one incident and one alert across both replicas; any replica shows it', async () => {
    const [a, b] = replicas as [HubReplica, HubReplica];
    const opened = await Promise.all([memberStream(a.origin, tokens.vic!), memberStream(b.origin, tokens.vic!)]);
    streams.push(...opened);
    const events = opened.map((s) => s.heard);
    // Each stream follows the events once it has told its cursor.
    await waitFor(() => events.every((e) => e.some((x) => x.name === 'cursor')), 10_000, 'both event streams open');
    await control(emu, 'POST', '/agents/a1/unlink');
    const seen = await waitFor(
      async () => {
        const lists = await Promise.all(replicas.map((r) => call<IncidentDTO[]>(r.origin, 'alerts.list', tokens.vic!)));
        const found = lists.map((l) => l.filter((i) => i.agentId === 'a1'));
        return found.every((f) => f.length === 1) ? found : null;
      },
      15_000,
      'the incident on both replicas',
    );
    incidentId = seen[0]![0]!.id;
    openedAt = seen[0]![0]!.openedAt;
    expect(seen[1]![0]!.id).toBe(incidentId);
    expect(seen[0]![0]!.kind).toBe('needs-scan');
    // Every agent's health on either replica.
    const health = await call<{ agents: Array<{ agentId: string; health: string }> }>(
      b.origin,
      'health.snapshot',
      tokens.vic!,
    );
    expect(health.agents.map((h) => h.agentId).sort()).toEqual(AGENTS);
    expect(health.agents.find((h) => h.agentId === 'a1')!.health).toBe('needs-scan');
    expect(health.agents.filter((h) => h.health === 'connected')).toHaveLength(5);
    // The agents (what `status --team` and the Agents screen list) with every agent's health, on both
    // replicas, whichever of them polls the agent.
    for (const r of replicas) {
      const agents = await call<Array<{ agentId: string; health: { health: string; checkedAt: number | null } }>>(
        r.origin,
        'agents.list',
        tokens.vic!,
      );
      expect(agents.map((x) => x.agentId).sort()).toEqual(AGENTS);
      expect(agents.find((x) => x.agentId === 'a1')!.health.health).toBe('needs-scan');
      expect(agents.filter((x) => x.health.health === 'connected')).toHaveLength(5);
      expect(agents.every((x) => x.health.checkedAt !== null)).toBe(true);
    }

    await waitFor(() => firing('a1').incidents.size > 0, 10_000, 'the alert at Alertmanager');
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_MS));
    expect(firing('a1').incidents).toEqual(new Set([incidentId]));
    expect(firing('a1').labelSets.size).toBe(1);
    const rows = await db.selectFrom('hub_incidents').select('id').where('agent_id', '=', 'a1').execute();
    expect(rows).toHaveLength(1);
    // One notification: the opening, told once (an event carried by both streams has one id).
    const told = events
      .flat()
      .filter((e) => e.name === 'alert')
      .map((e) => ({ id: e.id, p: e.data as { change: string; notify: boolean; incident: IncidentDTO } }))
      .filter((e) => e.p.notify && e.p.change === 'opened' && e.p.incident.agentId === 'a1');
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(new Set(told.map((e) => e.id ?? Math.random())).size).toBe(1);
  }, 60_000);

  it('an acknowledgement made through one replica shows who made it on the other', async () => {
    const [a, b] = replicas as [HubReplica, HubReplica];
    await call(b.origin, 'alerts.acknowledge', tokens.bob!, { incidentId });
    const acked = await waitFor(
      async () =>
        (await call<IncidentDTO[]>(a.origin, 'alerts.list', tokens.vic!)).find(
          (i) => i.id === incidentId && i.acknowledgedAt !== null,
        ),
      5_000,
      'the acknowledgement on a',
    );
    expect(acked.acknowledgedBy).toBe('bob');
    // A viewer may not acknowledge.
    const res = await fetch(`${a.origin}/api/alerts.acknowledge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.vic}` },
      body: JSON.stringify({ incidentId }),
    });
    expect(res.status).toBe(403);
  }, 30_000);

  it('a SIGKILLed replica: its agents are polled by the other within two intervals, the incident goes on', async () => {
    const holder = (
      await db.selectFrom('hub_leases').select('holder').where('agent_id', '=', 'a1').executeTakeFirstOrThrow()
    ).holder;
    const victim = replicas.find((r) => r.replica === holder)!;
    const survivor = replicas.find((r) => r !== victim)!;
    const orphans = (await leases()).get(victim.replica)!;
    victim.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.proc.exited;
    await waitFor(
      () => orphans.every((agent) => (proxy.polls.get(agent) ?? []).some((t) => t > killedAt + 50)),
      10_000,
      "the victim's agents polled again",
    );
    for (const agent of orphans) {
      const first = (proxy.polls.get(agent) ?? []).find((t) => t > killedAt + 50)!;
      expect(first - killedAt, agent).toBeLessThanOrEqual(2 * INTERVAL_MS + 500);
    }
    expect((await leases()).get(survivor.replica)).toEqual(AGENTS);
    // The same incident goes on: same id, same start, still acknowledged by bob; no second alert.
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
    const open = (await call<IncidentDTO[]>(survivor.origin, 'alerts.list', tokens.vic!)).filter(
      (i) => i.agentId === 'a1',
    );
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ id: incidentId, openedAt, acknowledgedBy: 'bob' });
    expect(await db.selectFrom('hub_incidents').select('id').where('agent_id', '=', 'a1').execute()).toHaveLength(1);
    expect(firing('a1').incidents).toEqual(new Set([incidentId]));
    expect(firing('a1').labelSets.size).toBe(1);
  }, 60_000);

  it('SIGTERM drains: /readyz answers 503 at once, the leases are given back, the other replica takes them', async () => {
    const live = replicas.find((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null)!;
    const next = await startReplica('c');
    await waitFor(async () => ((await leases()).get(next.replica)?.length ?? 0) > 0, 20_000, 'c holding a share');
    const statuses: number[] = [];
    live.proc.child.kill('SIGTERM');
    for (;;) {
      const status = await fetch(`${live.origin}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 0) break;
      statuses.push(status);
      await new Promise((r) => setTimeout(r, 5));
    }
    const exit = await live.proc.exited;
    expect(exit.code, live.proc.stderr()).toBe(0);
    expect(statuses).toContain(503);
    expect(statuses.slice(statuses.indexOf(503))).not.toContain(200);
    // Given back, not left to run out.
    expect((await leases()).get(live.replica)).toBeUndefined();
    expect(await db.selectFrom('hub_replicas').select('replica').where('replica', '=', live.replica).execute()).toEqual(
      [],
    );
    await waitFor(async () => (await leases()).get(next.replica)?.length === AGENTS.length, 5_000, 'c holding all');
    next.proc.child.kill('SIGTERM');
    expect((await next.proc.exited).code).toBe(0);
  }, 90_000);
});
