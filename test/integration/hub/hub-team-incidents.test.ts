// Team-wide incidents across two hub processes on one Postgres: the team's key rejected, then the service
// unreachable for every agent (a proxy in front of the emulator answers 401, then drops every connection).
// Each replica polls half the agents; one replica (the team's lease holder) judges the team over all of them:
// one incident, one notification, one Alertmanager alert per outage, shown by both; the holder SIGKILLed, the
// other continues the open incident (same id).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import type { Emulator } from '../../../src-main/emulator';
import type { IncidentDTO } from '../../../src-shared/contract';
import { startTestEmulator } from '../../helpers/emulator';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  alive,
  hubCall,
  serviceProxy,
  startHubReplica,
  stopAll,
  type HubReplica,
  type ServiceProxy,
} from './support';

const INTERVAL_MS = 1_000;
const API_KEY = 'hub-team-incidents-key-01';
const AGENTS = ['t1', 't2', 't3', 't4'];

describe('team-wide incidents across hub replicas', () => {
  let pg: TestPostgres;
  let db: HubDatabase;
  let emu: Emulator;
  let proxy: ServiceProxy;
  let alertmanager: HttpSink;
  let dir: string;
  const key = randomBytes(32).toString('base64');
  const tokens: Record<string, string> = {};
  const replicas: HubReplica[] = [];

  const member = async (name: string, role: string): Promise<void> => {
    tokens[name] = await addMember(pg.url, name, role);
  };
  const call = <T = unknown>(origin: string, name: string, token: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, token, name, body);
  const startReplica = async (name: string): Promise<HubReplica> => {
    const r = await startHubReplica({ databaseUrl: pg.url, secretKey: key, dir, name, pollSec: INTERVAL_MS / 1000 });
    replicas.push(r);
    return r;
  };
  const live = () => replicas.filter((r) => alive(r.proc));
  /** The team-wide incidents of a kind in Postgres (every replica's). */
  const teamWideRows = (kind: string) =>
    db
      .selectFrom('hub_incidents')
      .select(['id', 'open', 'replica'])
      .where('agent_id', 'is', null)
      .where((eb) => eb.fn('jsonb_extract_path_text', [eb.ref('dto'), eb.val('kind')]), '=', kind)
      .execute();
  /** The alerts Alertmanager received by alert name: the incident ids they carry. */
  const alertedIncidents = (alertname: string): Set<string> =>
    new Set(
      alertmanager.requests
        .flatMap(
          (r) =>
            JSON.parse(r.body.toString('utf8')) as Array<{
              labels: Record<string, string>;
              annotations: Record<string, string>;
            }>,
        )
        .filter((a) => a.labels.alertname === alertname)
        .map((a) => a.annotations.incident_id ?? ''),
    );
  /** The 'alert' rows of hub_events (what every client of every replica is told) opening a team-wide incident. */
  const openingNotices = async (kind: string): Promise<string[]> => {
    const rows = await db.selectFrom('hub_events').select(['payload']).where('name', '=', 'alert').execute();
    return rows
      .map((r) => r.payload as { change?: string; notify?: boolean; incident: IncidentDTO })
      .filter((p) => p.change === 'opened' && p.notify && p.incident.teamWide && p.incident.kind === kind)
      .map((p) => p.incident.id);
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
            agents: AGENTS.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555030000${i}` })),
          },
        ],
      },
    });
    proxy = await serviceProxy(emu.baseUrl);
    alertmanager = await startHttpSink();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-team-'));
    await member('ada', 'admin');
    await member('vic', 'viewer');
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
    // Each replica polls half the agents: neither sees the whole team by its own polls.
    await waitFor(
      async () => {
        const rows = await db.selectFrom('hub_leases').select('holder').execute();
        return (
          rows.filter((r) => r.holder === a.replica).length === 2 &&
          rows.filter((r) => r.holder === b.replica).length === 2
        );
      },
      20_000,
      'the agents spread over both replicas',
    );
    await waitFor(
      async () => (await db.selectFrom('hub_health').select('agent_id').execute()).length === AGENTS.length,
      10_000,
      'every agent polled',
    );
  }, 120_000);

  afterAll(async () => {
    await stopAll(replicas.map((r) => r.proc));
    await db?.destroy();
    await proxy?.close();
    await alertmanager?.close();
    await emu?.close();
    await pg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('an agent steady between polls: health.changed published once every 4 intervals; the event lag measured', async () => {
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('hub_events')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('name', '=', 'health.changed')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    await new Promise((r) => setTimeout(r, 8 * INTERVAL_MS));
    const published = (await count()) - before;
    // 8 intervals of 4 agents: 32 polls; each agent's poll time refreshed every 4 intervals (2–3 times).
    expect(published).toBeGreaterThanOrEqual(AGENTS.length);
    expect(published).toBeLessThanOrEqual(AGENTS.length * 3);
    // Each replica says how far behind the events it reads are (their publishing to its reading).
    for (const r of live()) {
      const metrics = await (
        await fetch(`${r.origin}/metrics`, { headers: { authorization: `Bearer ${tokens.vic}` } })
      ).text();
      const lag = /^channel_companion_hub_event_lag_seconds (\S+)$/m.exec(metrics);
      expect(lag, 'the lag gauge').not.toBeNull();
      expect(Number(lag![1])).toBeGreaterThanOrEqual(0);
    }
  }, 30_000);

  it('the key rejected: one incident, one notification, one alert across both replicas; resolved once', async () => {
    proxy.mode = 'reject';
    const open = await waitFor(
      async () => {
        const lists = await Promise.all(live().map((r) => call<IncidentDTO[]>(r.origin, 'alerts.list', tokens.vic!)));
        const found = lists.map((l) => l.filter((i) => i.teamWide && i.kind === 'key-rejected'));
        return found.every((f) => f.length === 1) ? found : null;
      },
      15_000,
      'the team-wide incident on both replicas',
    );
    const id = open[0]![0]!.id;
    expect(open[1]![0]!.id).toBe(id);
    await waitFor(() => alertedIncidents('ChannelApiKeyRejected').size > 0, 10_000, 'the alert at Alertmanager');
    // Several intervals more: both replicas keep seeing 401s, still one incident.
    await new Promise((r) => setTimeout(r, 4 * INTERVAL_MS));
    expect(await teamWideRows('key-rejected')).toHaveLength(1);
    expect(alertedIncidents('ChannelApiKeyRejected')).toEqual(new Set([id]));
    expect(await openingNotices('key-rejected')).toEqual([id]);

    proxy.mode = 'pass';
    await waitFor(
      async () => (await teamWideRows('key-rejected')).every((r) => !r.open),
      15_000,
      'the incident resolved',
    );
    expect(await teamWideRows('key-rejected')).toHaveLength(1);
  }, 60_000);

  it('every agent: a change published at once; its history and availability the same on either replica', async () => {
    const changed = await db.selectFrom('hub_events').select('payload').where('name', '=', 'health.changed').execute();
    const rejected = new Set(
      changed
        .map((r) => r.payload as { agentId: string; health: string })
        .filter((h) => h.health === 'key-rejected')
        .map((h) => h.agentId),
    );
    expect([...rejected].sort()).toEqual(AGENTS);
    const [a, b] = live() as [HubReplica, HubReplica];
    for (const agentId of AGENTS) {
      const args = { teamId: 'Support', agentId };
      const [ha, hb] = await Promise.all(
        [a, b].map((r) => call<Array<{ health: string }>>(r.origin, 'health.history', tokens.vic!, args)),
      );
      expect(ha, agentId).toEqual(hb);
      // Newest first: back to connected after the rejected key.
      expect(ha!.map((e) => e.health).slice(0, 2), agentId).toEqual(['connected', 'key-rejected']);
      const [va, vb] = await Promise.all(
        [a, b].map((r) =>
          call<{ windows: Array<{ observedMs: number; upMs: number }> }>(
            r.origin,
            'health.availability',
            tokens.vic!,
            args,
          ),
        ),
      );
      expect(va!.windows[0]!.observedMs, agentId).toBeGreaterThan(0);
      expect(va!.windows[0]!.upMs, agentId).toBeLessThan(va!.windows[0]!.observedMs);
      expect(vb!.windows[0]!.upMs, agentId).toBeGreaterThan(0);
    }
  }, 30_000);

  it('the service unreachable: one incident for the team; the holder SIGKILLed, the other continues it', async () => {
    proxy.mode = 'down';
    const rows = await waitFor(
      async () => {
        const r = await teamWideRows('unreachable');
        return r.length > 0 ? r : null;
      },
      20_000,
      'the team-wide outage',
    );
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_MS));
    expect(await teamWideRows('unreachable')).toHaveLength(1);
    const id = rows[0]!.id;
    expect(alertedIncidents('ChannelServiceUnreachable')).toEqual(new Set([id]));
    expect(await openingNotices('unreachable')).toEqual([id]);
    // No agent is alerted alone meanwhile (the team's incident covers them).
    const agentRows = await db
      .selectFrom('hub_incidents')
      .select('id')
      .where('agent_id', 'is not', null)
      .where('open', '=', true)
      .execute();
    expect(agentRows).toHaveLength(0);

    // The replica that judges the team dies: the other takes the team's lease and goes on with the incident.
    const holder = (await db.selectFrom('hub_team_leases').select('holder').executeTakeFirstOrThrow()).holder;
    const victim = replicas.find((r) => r.replica === holder)!;
    const survivor = replicas.find((r) => r !== victim)!;
    victim.proc.child.kill('SIGKILL');
    await victim.proc.exited;
    await waitFor(
      async () =>
        (await db.selectFrom('hub_team_leases').select('holder').executeTakeFirst())?.holder === survivor.replica,
      10_000,
      'the team lease taken over',
    );
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_MS));
    const still = await teamWideRows('unreachable');
    expect(still).toEqual([expect.objectContaining({ id, open: true })]);
    const list = await call<IncidentDTO[]>(survivor.origin, 'alerts.list', tokens.vic!);
    expect(list.filter((i) => i.teamWide)).toEqual([expect.objectContaining({ id, kind: 'unreachable' })]);

    // The service answers again: the survivor resolves the one incident.
    proxy.mode = 'pass';
    await waitFor(async () => (await teamWideRows('unreachable')).every((r) => !r.open), 20_000, 'resolved');
    expect(await teamWideRows('unreachable')).toHaveLength(1);
    expect(await openingNotices('unreachable')).toEqual([id]);
  }, 90_000);
});
