// The companion's metrics: what a scrape says about each agent, polls, alerts, deliveries and the
// send budget; and the /metrics endpoint (loopback, OpenMetrics, 404/405 elsewhere).
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerError } from '../../../../src-main/core/api/errors';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Emitter } from '../../../../src-main/core/events';
import { CompanionMetrics, startMetricsServer, type MetricsServer } from '../../../../src-main/core/metrics';
import type { AgentSnapshot, Alert, Monitor, PollResult } from '../../../../src-main/core/monitor';
import type { MonitorEvents } from '../../../../src-main/core/monitor/monitor';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

function snap(agentId: string, over: Partial<AgentSnapshot> = {}): AgentSnapshot {
  return {
    teamId: 't1',
    agentId,
    health: 'connected',
    state: 'connected',
    phone: null,
    needsScan: false,
    connected: true,
    linked: true,
    pairing: false,
    since: T0,
    lastPollAt: T0,
    lastSuccessAt: T0,
    consecutiveFailures: 0,
    ...over,
  };
}

function alert(over: Partial<Alert>): Alert {
  return {
    id: 'al',
    kind: 'needs-scan',
    urgent: true,
    teamId: 't1',
    teamLabel: 'Support desk',
    agentIds: ['a1'],
    title: '',
    body: '',
    at: T0,
    ...over,
  };
}

/** The value of one sample line, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function setup() {
  const events = new Emitter<MonitorEvents>();
  let label = 'Support desk';
  const monitor = {
    on: events.on.bind(events) as Monitor['on'],
    snapshot: () => [
      snap('a1'),
      snap('a2', {
        health: 'needs-scan',
        state: 'unlinked',
        needsScan: true,
        connected: false,
        linked: false,
        lastSuccessAt: null,
      }),
    ],
  };
  const metrics = new CompanionMetrics({
    teamLabel: (id) => (id === 't1' ? label : id),
    sendBudgets: () => [{ teamId: 't1', used: 7, limit: 60 }],
  });
  metrics.attach(monitor);
  return { metrics, events, rename: (l: string) => (label = l) };
}

const ok = (agentId: string, at: number, over: Partial<SessionStatus> = {}): PollResult => ({
  teamId: 't1',
  agentId,
  cycleId: 1,
  startedAt: at - 20,
  at,
  nextPollInMs: 5000,
  status: { connected: true, linked: true, state: 'connected', needsScan: false, phone: null, qr: null, ...over },
});

describe('CompanionMetrics', () => {
  it("a scrape says every agent's health (one-hot), needs_scan, connected, linked and last success, labelled by team label and agent id", async () => {
    const { metrics } = setup();
    const text = await metrics.metrics();
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a1",health="connected"}')).toBe(1);
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a1",health="needs-scan"}')).toBe(0);
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a2",health="needs-scan"}')).toBe(1);
    expect(text.match(/agent="a2",health="[^"]+"\} 1/g)).toHaveLength(1);
    expect(text.match(/agent="a2",health="[^"]+"\} 0/g)).toHaveLength(6);
    expect(sample(text, 'channel_companion_agent_needs_scan{team="Support desk",agent="a1"}')).toBe(0);
    expect(sample(text, 'channel_companion_agent_connected{team="Support desk",agent="a1"}')).toBe(1);
    expect(sample(text, 'channel_companion_agent_linked{team="Support desk",agent="a1"}')).toBe(1);
    expect(sample(text, 'channel_companion_agent_last_success_timestamp_seconds{team="Support desk",agent="a1"}')).toBe(
      T0 / 1000,
    );
    expect(
      sample(text, 'channel_companion_agent_last_success_timestamp_seconds{team="Support desk",agent="a2"}'),
    ).toBeUndefined();
    expect(sample(text, 'channel_companion_send_budget_used{team="Support desk"}')).toBe(7);
    expect(sample(text, 'channel_companion_send_budget_limit{team="Support desk"}')).toBe(60);
  });

  it('follows the monitor: polls move the flags and the last success, health changes the one-hot; a removed agent leaves; a renamed team moves its series', async () => {
    const { metrics, events, rename } = setup();
    events.emit('poll', ok('a1', T0 + 5000, { connected: false, state: 'reconnecting' }));
    events.emit('health', {
      teamId: 't1',
      agentId: 'a1',
      health: 'reconnecting',
      previous: 'connected',
      state: 'reconnecting',
      since: T0 + 5000,
    });
    events.emit('poll', ok('a2', T0 + 5000));
    events.emit('health', {
      teamId: 't1',
      agentId: 'a2',
      health: 'connected',
      previous: 'needs-scan',
      state: 'connected',
      since: T0 + 5000,
    });
    let text = await metrics.metrics();
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a1",health="reconnecting"}')).toBe(
      1,
    );
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a1",health="connected"}')).toBe(0);
    expect(sample(text, 'channel_companion_agent_connected{team="Support desk",agent="a1"}')).toBe(0);
    expect(sample(text, 'channel_companion_agent_linked{team="Support desk",agent="a1"}')).toBe(1);
    expect(sample(text, 'channel_companion_agent_last_success_timestamp_seconds{team="Support desk",agent="a1"}')).toBe(
      (T0 + 5000) / 1000,
    );
    expect(sample(text, 'channel_companion_agent_needs_scan{team="Support desk",agent="a2"}')).toBe(0);
    expect(sample(text, 'channel_companion_agent_health{team="Support desk",agent="a2",health="connected"}')).toBe(1);
    events.emit('removed', { teamId: 't1', agentId: 'a2' });
    rename('Front desk');
    text = await metrics.metrics();
    expect(text).not.toContain('agent="a2"');
    expect(text).not.toContain('team="Support desk",agent=');
    expect(sample(text, 'channel_companion_agent_health{team="Front desk",agent="a1",health="reconnecting"}')).toBe(1);
    expect(sample(text, 'channel_companion_agent_connected{team="Front desk",agent="a1"}')).toBe(0);
  });

  it('escapes label values (backslash, double quote, line feed) the way prom-client does for its own series', async () => {
    const { metrics, events, rename } = setup();
    rename('Ops "night" \\ desk\nB');
    events.emit('poll', { ...ok('a1', T0 + 30), startedAt: T0 });
    const text = await metrics.metrics();
    const team = 'team="Ops \\"night\\" \\\\ desk\\nB"';
    expect(sample(text, `channel_companion_agent_health{${team},agent="a1",health="connected"}`)).toBe(1);
    expect(sample(text, `channel_companion_agent_connected{${team},agent="a1"}`)).toBe(1);
    // prom-client's histogram of the same team writes the same label text
    expect(sample(text, `channel_companion_poll_duration_seconds_count{${team}}`)).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('# TYPE channel_companion_agent_health '))).toHaveLength(1);
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
    expect(text.indexOf('# EOF')).toBe(text.length - '# EOF\n'.length);
  });

  it('polls: latency histogram per team, errors by kind; alerts by kind (grouped → its parts); deliveries by verdict as given', async () => {
    const { metrics, events } = setup();
    events.emit('poll', { ...ok('a1', T0 + 30), startedAt: T0 });
    events.emit('poll', {
      teamId: 't1',
      agentId: 'a1',
      cycleId: 2,
      startedAt: T0,
      at: T0 + 700,
      nextPollInMs: 15_000,
      error: new ServerError({ status: 503 }),
    });
    events.emit(
      'alert',
      alert({
        kind: 'grouped',
        parts: [alert({ kind: 'needs-scan' }), alert({ kind: 'reconnecting', urgent: false })],
      }),
    );
    events.emit('alert', alert({ kind: 'needs-scan' }));
    metrics.countDelivery('a1', 'valid');
    metrics.countDelivery('a1', 'legacy-only');
    metrics.countDelivery('a1', 'valid');
    metrics.countRefused('bad-request', 408);
    metrics.countRefused('signature-mismatch', 401);
    metrics.countRefused('bad-request', 408);
    const text = await metrics.metrics();
    expect(sample(text, 'channel_companion_poll_duration_seconds_count{team="Support desk"}')).toBe(2);
    expect(sample(text, 'channel_companion_poll_duration_seconds_bucket{le="0.05",team="Support desk"}')).toBe(1);
    expect(sample(text, 'channel_companion_poll_duration_seconds_bucket{le="1",team="Support desk"}')).toBe(2);
    expect(
      sample(text, 'channel_companion_poll_errors_total{team="Support desk",agent="a1",kind="server-error"}'),
    ).toBe(1);
    expect(
      sample(text, 'channel_companion_alerts_total{team="Support desk",kind="needs-scan",severity="urgent"}'),
    ).toBe(2);
    expect(
      sample(text, 'channel_companion_alerts_total{team="Support desk",kind="reconnecting",severity="notice"}'),
    ).toBe(1);
    expect(text).not.toContain('kind="grouped"');
    expect(sample(text, 'channel_companion_tunnel_deliveries_total{agent="a1",verdict="valid"}')).toBe(2);
    expect(sample(text, 'channel_companion_tunnel_deliveries_total{agent="a1",verdict="legacy-only"}')).toBe(1);
    expect(sample(text, 'channel_companion_tunnel_refused_total{reason="bad-request",status="408"}')).toBe(2);
    expect(sample(text, 'channel_companion_tunnel_refused_total{reason="signature-mismatch",status="401"}')).toBe(1);
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
  });

  it('a failing send-budget source costs only the budget figures', async () => {
    const metrics = new CompanionMetrics({
      teamLabel: (id) => id,
      sendBudgets: () => {
        throw new Error('no client');
      },
    });
    metrics.attach({
      on: new Emitter<MonitorEvents>().on.bind(new Emitter<MonitorEvents>()) as Monitor['on'],
      snapshot: () => [snap('a1')],
    });
    const text = await metrics.metrics();
    expect(sample(text, 'channel_companion_agent_connected{team="t1",agent="a1"}')).toBe(1);
    expect(text).not.toContain('channel_companion_send_budget_used{');
  });
});

describe('the /metrics endpoint', () => {
  let server: MetricsServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('listens on loopback by default and answers OpenMetrics at /metrics only', async () => {
    server = await startMetricsServer(setup().metrics, { port: 0 });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(await res.text()).toContain('channel_companion_agent_health{');
    const base = server.url.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', body: 'x' })).status).toBe(405);
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
  });

  /** Status of a GET /metrics with the given Host header. */
  const statusWithHost = (port: number, host: string) =>
    new Promise<number>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port, path: '/metrics', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
      r.end();
    });

  it('answers only a Host naming this machine (a rebound DNS name is refused), as the browser host does', async () => {
    server = await startMetricsServer(setup().metrics, { port: 0 });
    const { port } = server;
    for (const ok of [`127.0.0.1:${port}`, `localhost:${port}`]) expect(await statusWithHost(port, ok)).toBe(200);
    for (const bad of [`rebind.attacker.example:${port}`, `app.localhost:${port}`, `127.0.0.1:${port + 1}`])
      expect(await statusWithHost(port, bad)).toBe(403);
  });

  it('a port in use is an error, not a crash', async () => {
    server = await startMetricsServer(setup().metrics, { port: 0 });
    await expect(startMetricsServer(setup().metrics, { port: server.port })).rejects.toThrow(/EADDRINUSE/);
  });
});
