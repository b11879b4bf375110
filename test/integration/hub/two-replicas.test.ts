// The team hub end to end, through exactly the surface a team uses: a real Postgres, the service's emulator,
// two `hub` processes (their own data folders, one database, one secret key) behind a round-robin balancer,
// and the command line as the members' laptops use it (CHANNEL_HUB_URL = the balancer, CHANNEL_HUB_TOKEN).
// An admin adds the team and points its agents' webhooks at the hub (`--register-url self`); two developers
// each run `listen --forward-to` their own local app. The service's deliveries spread over both replicas; one
// replica is SIGKILLed mid-stream, then Postgres is halted and resumed. Nothing the service was answered 2xx
// for is lost, every listener forwards every delivery once in per-agent order, and each agent is polled once
// per interval (counted at the service, the emulator behind a counting proxy). An agent that goes unlinked
// opens one incident and one Alertmanager alert across the replicas. A viewer may not send (403, exit 4), a
// removed member's token is refused at once (401), and no API key or signing secret reaches a member.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator';
import { runCli, type CliRun } from '../../helpers/cli';
import { control, startTestEmulator } from '../../helpers/emulator';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';
import { spawnCli, type Spawned } from '../../helpers/spawn-cli';
import { waitFor } from '../../helpers/wait';
import { startBalancer, type TestBalancer } from './balancer';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  alive,
  hubCall,
  serviceProxy,
  sqlRows,
  startHubReplica,
  stopAll,
  type HubReplica,
  type ServiceProxy,
} from './support';

const INTERVAL_MS = 1_000;
const API_KEY = 'two-replicas-test-key-0001';
const SECRET_KEY = randomBytes(32).toString('base64');
const AGENTS = ['a1', 'a2'];
const LABEL = 'Support';
const CONTACT = '+15550102000';

interface EmulatorDelivery {
  agentId: string;
  messageId: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: Array<{ status: number | null }>;
}

describe('the team hub: two replicas behind a balancer, driven through the command line', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let proxy: ServiceProxy;
  let alertmanager: HttpSink;
  let lb: TestBalancer;
  let dir: string;
  const replicas: HubReplica[] = [];
  const tokens: Record<string, string> = {};
  /** Every command a member ran (its output is member-facing). */
  const memberRuns: CliRun[] = [];
  const listens: Array<{ member: string; proc: Spawned; app: HttpSink }> = [];
  /** The message ids the service sent, per agent, in the order it sent them. */
  const sent = new Map<string, string[]>(AGENTS.map((a) => [a, []]));

  const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> =>
    sqlRows<T>(db.url, text, values);
  const member = async (name: string, role: string): Promise<string> =>
    (tokens[name] = await addMember(db.url, name, role));
  /** A command on a member's laptop: its own empty config folder, the hub (the balancer) in the environment. */
  const cli = async (who: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> => {
    const r = await runCli(args, {
      configDir: path.join(dir, `laptop-${who}`),
      env: { CHANNEL_HUB_URL: lb.origin, CHANNEL_HUB_TOKEN: tokens[who]!, ...env },
    });
    memberRuns.push(r);
    return r;
  };
  /** The contract over HTTP through the balancer, as a member. */
  const call = <T = unknown>(who: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(lb.origin, tokens[who]!, name, body);
  const startReplica = async (name: string): Promise<HubReplica> => {
    const r = await startHubReplica({
      databaseUrl: db.url,
      secretKey: SECRET_KEY,
      dir,
      name,
      publicUrl: lb.origin,
      pollSec: INTERVAL_MS / 1000,
      readyMs: 90_000,
    });
    replicas.push(r);
    return r;
  };
  const deliveries = () => control<EmulatorDelivery[]>(emu, 'GET', '/deliveries');
  const inbound = async (agentId: string, n: number): Promise<void> => {
    const r = await control<{ messageId: string; deliveryId: string | null }>(
      emu,
      'POST',
      `/agents/${agentId}/inbound`,
      {
        from: CONTACT,
        text: `message ${n} to ${agentId}`,
      },
    );
    expect(r.deliveryId, 'the agent has a webhook').not.toBeNull();
    sent.get(agentId)!.push(r.messageId);
  };
  /** The message ids an app was forwarded, per agent, in arrival order. */
  const forwardedTo = (app: HttpSink): Map<string, string[]> => {
    const by = new Map<string, string[]>(AGENTS.map((a) => [a, []]));
    for (const q of app.requests) {
      const body = JSON.parse(q.body.toString('utf8')) as { message?: { id?: string } };
      const id = body.message?.id ?? '';
      const agent = AGENTS.find((a) => sent.get(a)!.includes(id)) ?? '?';
      by.set(agent, [...(by.get(agent) ?? []), id]);
    }
    return by;
  };
  const leases = async (): Promise<Map<string, string[]>> => {
    const rows = await sql<{ holder: string; agent_id: string }>('select holder, agent_id from hub_leases');
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.holder, [...(by.get(r.holder) ?? []), r.agent_id].sort());
    return by;
  };
  const pollsBetween = (agent: string, from: number, to: number): number =>
    (proxy.polls.get(agent) ?? []).filter((t) => t >= from && t < to).length;

  beforeAll(async () => {
    [db, emu, alertmanager] = await Promise.all([
      startPostgres(),
      startTestEmulator({
        seed: {
          teams: [
            {
              id: 'hub-team',
              apiKey: API_KEY,
              agents: AGENTS.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555020000${i}` })),
            },
          ],
        },
        // The service keeps trying a delivery that was not answered 2xx (here for about a minute), so what
        // a dead replica or a stopped database refused arrives later.
        deliveryBackoffMs: Array.from({ length: 60 }, () => 1_000),
      }),
      startHttpSink(),
    ]);
    proxy = await serviceProxy(emu.baseUrl);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-two-'));
    await member('ada', 'admin');
    await member('dev1', 'developer');
    await member('dev2', 'developer');
    await member('vic', 'viewer');
    // The balancer first (its origin is the hub's public URL), the replicas behind it.
    lb = await startBalancer([]);
    const [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
    lb.add(a.origin);
    lb.add(b.origin);
  }, 180_000);

  afterAll(async () => {
    await stopAll(
      listens.map((l) => l.proc),
      'SIGTERM',
    );
    await stopAll(
      replicas.map((r) => r.proc),
      'SIGTERM',
    );
    await Promise.allSettled([
      lb?.close(),
      proxy?.close(),
      alertmanager?.close(),
      emu?.close(),
      ...listens.map((l) => l.app.close()),
    ]);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('team add through the balancer', async () => {
    const add = await cli(
      'ada',
      ['team', 'add', '--label', LABEL, '--base-url', proxy.url, ...AGENTS.flatMap((a) => ['--agent', a]), '--json'],
      {
        CHANNEL_API_KEY: API_KEY,
      },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.json()[0]).toMatchObject({ label: LABEL });
  }, 60_000);

  it('status and webhook set --register-url self, through the balancer', async () => {
    // The team is there (also when the answer to team add failed after the team was saved).
    await waitFor(
      async () => (await call<Array<{ label: string }>>('vic', 'teams.list')).some((t) => t.label === LABEL),
      10_000,
      'the team listed',
    );

    // Every replica knows the team, whichever one takes the request: the team's status lists both agents, and
    // one agent's status is its session.
    for (let i = 0; i < 2; i++) {
      const team = await cli('vic', ['status', '--team', LABEL, '--json']);
      expect(team.code, team.stderr).toBe(0);
      expect((team.json()[0] as { agents: Array<{ agentId: string }> }).agents.map((a) => a.agentId).sort()).toEqual(
        [...AGENTS].sort(),
      );
    }
    for (const agent of [...AGENTS, ...AGENTS]) {
      const status = await cli('vic', ['status', '--team', LABEL, '--agent', agent, '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.json()[0]).toMatchObject({ agentId: agent });
    }

    for (const agent of AGENTS) {
      const set = await cli('ada', [
        'webhook',
        'set',
        '--team',
        LABEL,
        '--agent',
        agent,
        '--register-url',
        'self',
        '--yes',
        '--json',
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(set.json()[0]).toMatchObject({ url: `${lb.origin}/hooks/${agent}` });
    }
    const state = await control<{ agents: Array<{ agentId: string; webhook?: { url: string } | null }> }>(
      emu,
      'GET',
      '/state',
    );
    for (const agent of AGENTS)
      expect(state.agents.find((a) => a.agentId === agent)?.webhook?.url).toBe(`${lb.origin}/hooks/${agent}`);

    // The Alertmanager stand-in, set by the admin through the contract (the CLI has no command for it).
    await call('ada', 'settings.update', { patch: { alertmanagerUrl: alertmanager.url.replace(/\/hook$/, '/') } });
  }, 120_000);

  it('two developers listen, each forwarding to an app of their own', async () => {
    for (const who of ['dev1', 'dev2']) {
      const app = await startHttpSink();
      const proc = spawnCli(['listen', '--team', LABEL, '--forward-to', app.url, '--json'], {
        CHANNEL_HUB_URL: lb.origin,
        CHANNEL_HUB_TOKEN: tokens[who]!,
        CHANNEL_COMPANION_HOME: path.join(dir, `laptop-${who}`),
      });
      listens.push({ member: who, proc, app });
    }
    for (const l of listens)
      await waitFor(
        () => l.proc.stdout().includes('"event":"ready"') || !alive(l.proc),
        60_000,
        `${l.member}'s listen ready`,
      );
    for (const l of listens) expect(alive(l.proc), l.proc.stderr()).toBe(true);
  }, 90_000);

  it('each agent is polled once per interval by the two replicas together', async () => {
    const [a, b] = replicas as [HubReplica, HubReplica];
    await waitFor(
      async () => {
        const by = await leases();
        return by.get(a.replica)?.length === 1 && by.get(b.replica)?.length === 1;
      },
      30_000,
      'the agents spread over both replicas',
    );
    const from = Date.now() + 500;
    const intervals = 8;
    await waitFor(() => Date.now() >= from + intervals * INTERVAL_MS, 30_000, 'the measuring window');
    // 8 intervals: 8 polls each (jitter only shortens an interval, by up to 10 %); two replicas polling
    // one agent would double it.
    for (const agent of AGENTS) {
      const n = pollsBetween(agent, from, from + intervals * INTERVAL_MS);
      expect(n, agent).toBeGreaterThanOrEqual(intervals - 1);
      expect(n, agent).toBeLessThanOrEqual(intervals + 3);
    }
  }, 60_000);

  it('deliveries spread over both replicas; one SIGKILLed mid-stream, then Postgres halted and resumed: nothing acknowledged lost, every listener gets each once, in order', async () => {
    const [a, b] = replicas as [HubReplica, HubReplica];
    const total = 60;
    const deliveredCount = async () => (await deliveries()).filter((d) => d.status === 'delivered').length;
    let killedAt = 0;
    let n = 0;
    // First third: both replicas up.
    for (; n < 20; n++) await inbound(AGENTS[n % 2]!, n);
    await waitFor(async () => (await deliveredCount()) >= 10, 60_000, 'some deliveries acknowledged');
    const hooksAt = (origin: string) => lb.answers.filter((x) => x.backend === origin && x.path.startsWith('/hooks/'));
    // Second third: b dies while deliveries are under way.
    for (; n < 40; n++) {
      await inbound(AGENTS[n % 2]!, n);
      if (n === 25) {
        b.proc.child.kill('SIGKILL');
        killedAt = Date.now();
      }
    }
    expect((await b.proc.exited).signal).toBe('SIGKILL');
    expect(hooksAt(a.origin).length, 'hooks answered by a').toBeGreaterThan(0);
    expect(hooksAt(b.origin).length, 'hooks answered by b').toBeGreaterThan(0);
    await waitFor(async () => (await deliveredCount()) >= 30, 90_000, 'deliveries acknowledged by the survivor');
    const killWindowEnd = Date.now();

    // Last third: Postgres stops while the service delivers; nothing is acknowledged until it is back.
    await db.halt();
    try {
      for (; n < 50; n++) await inbound(AGENTS[n % 2]!, n);
      await waitFor(
        async () => (await deliveries()).some((d) => d.attempts.some((t) => t.status === 503)),
        30_000,
        'a delivery refused with 503 while the database is away',
      );
    } finally {
      await db.resume();
    }
    for (; n < total; n++) await inbound(AGENTS[n % 2]!, n);
    const all = await waitFor(
      async () => {
        const list = await deliveries();
        return list.length === total && list.every((d) => d.status !== 'pending') ? list : null;
      },
      120_000,
      'the service done with every delivery',
    );

    // No acknowledged delivery lost: every one the service got a 2xx for is a row, once.
    const acknowledged = all.filter((d) =>
      d.attempts.some((t) => t.status !== null && t.status >= 200 && t.status < 300),
    );
    expect(acknowledged.length).toBe(total);
    const rows = await sql<{ agent_id: string; key: string; n: string }>(
      'select agent_id, key, count(*) as n from hub_deliveries group by agent_id, key',
    );
    const stored = new Map(rows.map((r) => [`${r.agent_id}/${r.key}`, Number(r.n)]));
    for (const d of acknowledged) expect(stored.get(`${d.agentId}/${d.messageId}`), d.messageId).toBe(1);
    expect(rows).toHaveLength(total);

    // Both listeners: every delivery once, in the order the service sent them per agent.
    for (const l of listens) {
      await waitFor(() => l.app.requests.length >= total, 120_000, `${l.member}'s app forwarded every delivery`).catch(
        (e: unknown) => {
          const got = [...forwardedTo(l.app)].map(([agent, ids]) => `${agent}: ${ids.length}`).join(', ');
          throw new Error(`${String(e)} (forwarded ${got}; its stderr: ${l.proc.stderr().slice(-2_000)})`);
        },
      );
    }
    // A repeat forward would follow soon after: the listeners are given two more seconds to show one.
    const settled = Date.now() + 2_000;
    await waitFor(() => Date.now() >= settled, 5_000, 'the listeners settled');
    for (const l of listens) {
      const got = forwardedTo(l.app);
      expect(got.get('?') ?? [], `${l.member}: forwards of unknown messages`).toEqual([]);
      for (const agent of AGENTS) expect(got.get(agent), `${l.member} / ${agent}`).toEqual(sent.get(agent));
      expect(alive(l.proc), l.proc.stderr()).toBe(true);
    }

    // Polls after the takeover: a's share grew to both agents; still once per interval each (±1 at the takeover).
    const seconds = Math.floor((killWindowEnd - killedAt) / INTERVAL_MS);
    for (const agent of AGENTS) {
      const polls = pollsBetween(agent, killedAt, killedAt + seconds * INTERVAL_MS);
      expect(polls, agent).toBeLessThanOrEqual(Math.ceil(seconds * 1.15) + 2);
    }
  }, 420_000);

  it('an agent that goes unlinked: one incident and one Alertmanager alert across the replicas', async () => {
    // A second replica again, so two are up when the agent goes unlinked.
    const c = await startReplica('c');
    lb.add(c.origin);
    const [a] = replicas as [HubReplica];
    await waitFor(
      async () => {
        const by = await leases();
        return by.get(a.replica)?.length === 1 && by.get(c.replica)?.length === 1;
      },
      30_000,
      'the agents spread over a and c',
    );
    await control(emu, 'POST', '/agents/a2/unlink');
    const firing = () => {
      const alerts = alertmanager.requests.flatMap(
        (r) =>
          JSON.parse(r.body.toString('utf8')) as Array<{
            labels: Record<string, string>;
            annotations: Record<string, string>;
          }>,
      );
      const about = alerts.filter((x) => x.labels.agent === 'a2');
      return {
        labelSets: new Set(about.map((x) => JSON.stringify(x.labels))),
        incidents: new Set(about.map((x) => x.annotations.incident_id)),
      };
    };
    const incident = await waitFor(
      async () =>
        (await call<Array<{ id: string; agentId: string }>>('vic', 'alerts.list')).find((i) => i.agentId === 'a2'),
      30_000,
      'the incident listed',
    );
    await waitFor(() => firing().incidents.size > 0, 30_000, 'the alert at Alertmanager');
    // Both replicas answer the same: one incident (asked often enough to reach each).
    for (let i = 0; i < 4; i++) {
      const list = await call<Array<{ id: string; agentId: string }>>('vic', 'alerts.list');
      expect(list.filter((x) => x.agentId === 'a2').map((x) => x.id)).toEqual([incident.id]);
    }
    // Three more intervals: a second holder or replica would have raised its own by now.
    const until = Date.now() + 3 * INTERVAL_MS;
    await waitFor(() => Date.now() >= until, 10_000);
    expect(await sql("select id from hub_incidents where agent_id = 'a2'")).toHaveLength(1);
    expect(firing().incidents).toEqual(new Set([incident.id]));
    expect(firing().labelSets.size).toBe(1);
  }, 120_000);

  it('a viewer may not send or register (403, exit 4); a removed member’s token is refused at once (401), their stream ended', async () => {
    const send = await cli('vic', ['send', '--team', LABEL, '--agent', 'a1', '--to', CONTACT, '--text', 'hi']);
    expect(send.code, send.stderr).toBe(4);
    expect(send.stderr).toContain('send.message needs the role developer or above; vic is viewer');
    expect(lb.answers.some((x) => x.path === '/api/send.message' && x.status === 403)).toBe(true);
    const register = await cli('vic', [
      'webhook',
      'set',
      '--team',
      LABEL,
      '--agent',
      'a1',
      '--register-url',
      'self',
      '--yes',
    ]);
    expect(register.code, register.stderr).toBe(4);
    expect(register.stderr).toContain('webhook.register needs the role admin');
    expect(lb.answers.some((x) => x.path === '/api/webhook.register' && x.status === 403)).toBe(true);

    await member('rem', 'developer');
    expect((await cli('rem', ['team', 'list'])).code).toBe(0);
    // An event stream the member holds open (on whichever replica) ends once they are removed.
    const stream = await fetch(`${lb.origin}/api/events`, { headers: { authorization: `Bearer ${tokens.rem}` } });
    expect(stream.status).toBe(200);
    let ended = false;
    void (async () => {
      for await (const _chunk of stream.body as unknown as AsyncIterable<Uint8Array>);
    })()
      .catch(() => undefined)
      .finally(() => (ended = true));
    const removed = await runCli(['hub', 'member', 'remove', 'rem'], { env: { DATABASE_URL: db.url } });
    expect(removed.code, removed.stderr).toBe(0);
    // The very next requests, whichever replica takes them.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${lb.origin}/api/teams.list`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.rem}` },
        body: '{}',
      });
      expect(res.status).toBe(401);
    }
    const refused = await cli('rem', ['status', '--team', LABEL]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('the hub refused the token (CHANNEL_HUB_TOKEN): missing, wrong or revoked');
    await waitFor(() => ended, 15_000, "the removed member's event stream ended");
  }, 60_000);

  it('no API key or signing secret in anything a member was told, printed or logged', async () => {
    const [a] = replicas as [HubReplica];
    // The signing secrets, asked of a replica directly (an admin's reveal; not through the members' balancer).
    const secrets: string[] = [];
    for (const agentId of AGENTS) {
      const teams = await call<Array<{ teamId: string; label: string }>>('ada', 'teams.list');
      const teamId = teams.find((t) => t.label === LABEL)!.teamId;
      const res = await fetch(`${a.origin}/api/webhook.revealSecret`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.ada}` },
        body: JSON.stringify({ teamId, agentId }),
      });
      const r = (await res.json()) as { ok: boolean; value: { secret: string } };
      expect(r.ok, JSON.stringify(r)).toBe(true);
      secrets.push(r.value.secret);
    }
    expect(secrets.every((s) => s.length >= 16)).toBe(true);
    const metrics = await (
      await fetch(`${lb.origin}/metrics`, { headers: { authorization: `Bearer ${tokens.vic}` } })
    ).text();
    const seen: Array<[string, string]> = [
      ...lb.answers.map((x, i): [string, string] => [`answer ${i} ${x.method} ${x.path}`, x.body]),
      ...memberRuns.map((r, i): [string, string] => [`command ${i}`, r.stdout + r.stderr]),
      ...listens.map((l): [string, string] => [`${l.member}'s listen`, l.proc.stdout() + l.proc.stderr()]),
      ...replicas.map((r): [string, string] => [`replica ${r.name}'s log`, r.proc.stdout() + r.proc.stderr()]),
      ['metrics', metrics],
    ];
    expect(seen.length).toBeGreaterThan(20);
    for (const [where, text] of seen)
      for (const secret of [API_KEY, SECRET_KEY, ...secrets]) expect(text.includes(secret), where).toBe(false);
    // Nor a member's token in a replica's log.
    for (const r of replicas)
      for (const token of Object.values(tokens)) expect(r.proc.stderr().includes(token), r.name).toBe(false);
  }, 60_000);
});
