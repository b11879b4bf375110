// The Alertmanager sink over a recording HTTP receiver: raised incidents fire with stable labels,
// resolve with endsAt, re-label on a new kind, are resent on a timer; tracked-only ones never go.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertmanagerSink } from '../../../../src-main/core/monitor';
import type { PostableAlert } from '../../../../src-main/core/monitor/alertmanager';
import type { IncidentUpdate } from '../../../../src-main/core/monitor';
import type { Alert, Incident } from '../../../../src-main/core/monitor/types';
import { DEFAULT_RULES } from '../../../../src-main/core/monitor/types';
import { Emitter } from '../../../../src-main/core/events';
import { FakeClock } from '../../../helpers/fake-clock';
import { startHttpSink, type HttpSink } from '../../../helpers/http-sink';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

function incident(over: Partial<Incident> = {}): Incident {
  return {
    id: 'inc-1',
    teamId: 't1',
    agentId: 'a1',
    agentIds: ['a1'],
    kind: 'needs-scan',
    openedAt: T0,
    delivered: true,
    raised: true,
    acknowledgedAt: null,
    resolvedAt: null,
    lastAlertAt: T0,
    group: 'grp-1',
    ...over,
  };
}

let am: HttpSink | null = null;
afterEach(async () => {
  await am?.close();
  am = null;
});

async function setup(open: Incident[] = [], active?: () => boolean) {
  am = await startHttpSink();
  const clock = new FakeClock(T0);
  const events = new Emitter<{ incident: IncidentUpdate; alert: Alert }>();
  const sink = new AlertmanagerSink(am.url.replace(/\/hook$/, '/am/'), {
    clock,
    teamLabel: (id) => (id === 't1' ? 'Support desk' : id),
    resendMs: 60_000,
    ...(active ? { active } : {}),
  });
  const off = sink.attach({ on: events.on.bind(events), incidents: () => open, rules: () => DEFAULT_RULES });
  const posted = () =>
    am!.requests.map((r) => ({ path: r.url, alerts: JSON.parse(r.body.toString('utf8')) as PostableAlert[] }));
  const emit = async (u: IncidentUpdate, alert?: Alert) => {
    // As the monitor does: the update, then (in the same step) the alert that words it.
    events.emit('incident', u);
    if (alert) events.emit('alert', alert);
    await sink.flush();
  };
  return { clock, sink, off, posted, emit, events };
}

describe('AlertmanagerSink', () => {
  it('labels: alertname per kind, team label, agent (not for team-wide), severity', async () => {
    const h = await setup();
    /** The labels the sink posts for this incident once it is raised. */
    const labels = async (over: Partial<Incident>) => {
      const id = `inc-${h.posted().length + 1}`;
      await h.emit({ change: 'opened', incident: incident({ id, ...over }) });
      const alerts = h.posted().flatMap((p) => p.alerts);
      const mine = alerts.filter((a) => a.annotations['incident_id'] === id);
      expect(mine.length).toBeGreaterThan(0);
      return mine.at(-1)!.labels;
    };
    expect(await labels({})).toEqual({
      alertname: 'ChannelNeedsScan',
      team: 'Support desk',
      agent: 'a1',
      kind: 'needs-scan',
      severity: 'critical',
      source: 'channel-companion',
      incident_group: 'grp-1',
    });
    // An incident with no group (kept by an older version) is a group of its own.
    expect(await labels({ group: undefined })).toMatchObject({ incident_group: 'inc-2' });
    expect(await labels({ kind: 'reconnecting' })).toMatchObject({
      alertname: 'ChannelReconnecting',
      severity: 'warning',
    });
    expect(await labels({ kind: 'flapping' })).toMatchObject({ alertname: 'ChannelFlapping', severity: 'warning' });
    expect(await labels({ kind: 'unreachable' })).toMatchObject({
      alertname: 'ChannelAgentUnreachable',
      severity: 'warning',
    });
    const team = await labels({ kind: 'unreachable', agentId: null, agentIds: ['a1', 'a2'] });
    expect(team).toMatchObject({ alertname: 'ChannelServiceUnreachable', severity: 'critical', team: 'Support desk' });
    expect(team).not.toHaveProperty('agent');
    expect(await labels({ kind: 'key-rejected', agentId: null })).toMatchObject({
      alertname: 'ChannelApiKeyRejected',
      severity: 'critical',
    });
  });

  it("a raised incident fires at /api/v2/alerts; resolving it posts the same labels with endsAt at the incident's end", async () => {
    const h = await setup();
    expect(h.sink.endpoint).toMatch(/\/am\/api\/v2\/alerts$/);
    await h.emit({ change: 'opened', incident: incident() });
    await h.emit({ change: 'updated', incident: incident({ acknowledgedAt: T0 + 1000 }) }); // nothing new for Alertmanager
    // Seen well again 60 s in, closed 30 s later: Alertmanager's length is the incident's, 60 s.
    await h.emit({ change: 'resolved', incident: incident({ endedAt: T0 + 60_000, resolvedAt: T0 + 90_000 }) });
    const [fire, resolve] = h.posted();
    expect(h.posted()).toHaveLength(2);
    expect(fire!.path).toBe('/am/api/v2/alerts');
    expect(fire!.alerts).toEqual([
      {
        labels: {
          alertname: 'ChannelNeedsScan',
          team: 'Support desk',
          agent: 'a1',
          kind: 'needs-scan',
          severity: 'critical',
          source: 'channel-companion',
          incident_group: 'grp-1',
        },
        annotations: {
          summary: 'a1 needs a QR scan',
          description: expect.stringContaining('scan'),
          incident_id: 'inc-1',
          team_id: 't1',
        },
        startsAt: new Date(T0).toISOString(),
        endsAt: new Date(T0 + 4 * 60_000).toISOString(),
      },
    ]);
    expect(resolve!.alerts).toEqual([{ ...fire!.alerts[0], endsAt: new Date(T0 + 60_000).toISOString() }]);
  });

  it('tracked-only incidents never go (a pairing started on purpose); incidents open at attach do', async () => {
    const h = await setup([incident({ id: 'open-before' })]);
    await h.sink.flush();
    await h.emit({ change: 'opened', incident: incident({ id: 'pairing', raised: false }) });
    await h.emit({ change: 'resolved', incident: incident({ id: 'pairing', raised: false, resolvedAt: T0 }) });
    expect(h.posted().map((p) => p.alerts.map((a) => a.annotations['incident_id']))).toEqual([['open-before']]);
  });

  it('a new kind resolves the old alert and fires the new one; firing alerts are resent every minute', async () => {
    const h = await setup();
    await h.emit({ change: 'opened', incident: incident({ kind: 'reconnecting' }) });
    await h.emit({ change: 'updated', incident: incident({ kind: 'needs-scan' }) });
    const second = h.posted()[1]!.alerts;
    expect(second.map((a) => [a.labels['alertname'], a.endsAt])).toEqual([
      ['ChannelReconnecting', new Date(T0).toISOString()],
      ['ChannelNeedsScan', new Date(T0 + 4 * 60_000).toISOString()],
    ]);
    await h.clock.advance(60_000);
    await h.sink.flush();
    const resent = h.posted()[2]!.alerts;
    expect(resent.map((a) => [a.labels['alertname'], a.endsAt])).toEqual([
      ['ChannelNeedsScan', new Date(T0 + 5 * 60_000).toISOString()],
    ]);
    h.off();
    await h.clock.advance(10 * 60_000);
    expect(h.posted()).toHaveLength(3);
  });

  it('the 20 incidents of one step go in two posts: the first at once, the other 19 together behind it', async () => {
    const h = await setup();
    for (let n = 1; n <= 20; n++)
      h.events.emit('incident', { change: 'opened', incident: incident({ id: `i${n}`, agentId: `a${n}` }) });
    await h.sink.flush();
    await h.sink.flush();
    expect(h.posted().map((p) => p.alerts.length)).toEqual([1, 19]);
    expect(new Set(h.posted().flatMap((p) => p.alerts.map((a) => a.labels['incident_group'])))).toEqual(
      new Set(['grp-1']),
    );
    h.off();
  });

  it('incidents of one group share their incident_group label; a move to another group resolves the old alert', async () => {
    const h = await setup();
    await h.emit({ change: 'opened', incident: incident({ id: 'i1', kind: 'reconnecting', group: 'g1' }) });
    await h.emit({
      change: 'opened',
      incident: incident({ id: 'i2', agentId: 'a2', kind: 'reconnecting', group: 'g1' }),
    });
    expect(h.posted().map((p) => p.alerts.map((a) => a.labels['incident_group']))).toEqual([['g1'], ['g1']]);
    // Same kind, a new group (raised again later): the old label set resolves, the new one fires.
    await h.emit({ change: 'updated', incident: incident({ id: 'i1', kind: 'reconnecting', group: 'g2' }) });
    expect(h.posted()[2]!.alerts.map((a) => [a.labels['incident_group'], a.endsAt])).toEqual([
      ['g1', new Date(T0).toISOString()],
      ['g2', new Date(T0 + 4 * 60_000).toISOString()],
    ]);
    h.off();
  });

  it('posts nothing while another app posts the alerts; from the moment it does, the resend fires what is open', async () => {
    let posting = false;
    const h = await setup([], () => posting);
    await h.emit({ change: 'opened', incident: incident({ id: 'a' }) });
    await h.emit({ change: 'opened', incident: incident({ id: 'b', agentId: 'a2' }) });
    await h.emit({ change: 'resolved', incident: incident({ id: 'b', agentId: 'a2', resolvedAt: T0 + 1000 }) });
    await h.clock.advance(60_000);
    await h.sink.flush();
    expect(h.posted()).toEqual([]);
    posting = true;
    await h.clock.advance(60_000);
    await h.sink.flush();
    expect(h.posted().map((p) => p.alerts.map((a) => a.annotations['incident_id']))).toEqual([['a']]);
    await h.emit({ change: 'resolved', incident: incident({ id: 'a', resolvedAt: T0 + 130_000 }) });
    expect(h.posted()[1]!.alerts[0]!.endsAt).toBe(new Date(T0 + 130_000).toISOString());
    h.off();
  });

  it("taking over posts what fires here at once, and resolves the other app's incidents seen recovered", async () => {
    let posting = false;
    const h = await setup([], () => posting);
    await h.emit({ change: 'opened', incident: incident({ id: 'a' }) });
    await h.clock.advance(10_000);
    posting = true;
    h.sink.takeOver([incident({ id: 'theirs', agentId: 'a2', kind: 'reconnecting', openedAt: T0 - 5000 })]);
    await h.sink.flush();
    // One post, before any resend: the other app's incident resolved now, this app's firing.
    expect(h.posted()).toHaveLength(1);
    const [resolved, firing] = h.posted()[0]!.alerts;
    expect(resolved).toMatchObject({
      labels: { alertname: 'ChannelReconnecting', agent: 'a2', kind: 'reconnecting' },
      annotations: { incident_id: 'theirs' },
      endsAt: new Date(T0 + 10_000).toISOString(),
    });
    expect(firing!.annotations['incident_id']).toBe('a');
    expect(Date.parse(firing!.endsAt!)).toBeGreaterThan(T0 + 10_000);
    h.off();
  });

  it("the annotations carry the words of the incident's alert (the same the app and the CLI show)", async () => {
    const h = await setup();
    const words = {
      title: 'a1 (+15550100001) was unlinked — a QR scan is needed',
      body: 'A person must scan a pairing QR code.',
    };
    const alert: Alert = {
      id: 'al-1',
      kind: 'needs-scan',
      urgent: true,
      teamId: 't1',
      teamLabel: 'Support desk',
      agentIds: ['a1'],
      ...words,
      at: T0,
      incidentId: 'inc-1',
    };
    await h.emit({ change: 'opened', incident: incident() }, alert);
    expect(h.posted()).toHaveLength(1);
    expect(h.posted()[0]!.alerts[0]!.annotations).toMatchObject({ summary: words.title, description: words.body });
  });

  it('a post Alertmanager does not take is tried again with backoff at once (1 s, 2 s, 4 s, 8 s…), in order, the firing alert with a fresh endsAt', async () => {
    // An Alertmanager that answers 503 to the first `down` posts, then 200.
    const bodies: Array<{ status: number; alerts: PostableAlert[] }> = [];
    let down = 4;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = down-- > 0 ? 503 : 200;
        bodies.push({ status, alerts: JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostableAlert[] });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const clock = new FakeClock(T0);
      const events = new Emitter<{ incident: IncidentUpdate; alert: Alert }>();
      const sink = new AlertmanagerSink(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        clock,
        resendMs: 60_000,
      });
      const off = sink.attach({ on: events.on.bind(events), incidents: () => [], rules: () => DEFAULT_RULES });
      const step = async (ms: number) => {
        for (let t = 0; t < ms; t += 500) {
          await clock.advance(500);
          await sink.flush();
        }
      };
      events.emit('incident', { change: 'opened', incident: incident() });
      await sink.flush();
      await step(16_000);
      // Tried at 0, 1, 3, 7 and 15 s (taken at the fifth), not left for the resend a minute later.
      expect(bodies.map((b) => b.status)).toEqual([503, 503, 503, 503, 200]);
      const taken = bodies[4]!.alerts;
      expect(taken.map((a) => [a.labels['alertname'], a.endsAt])).toEqual([
        ['ChannelNeedsScan', new Date(T0 + 15_000 + 4 * 60_000).toISOString()],
      ]);

      // A resolve that fails is tried again too (it used to be lost): it follows the firing post.
      down = 1;
      events.emit('incident', { change: 'resolved', incident: incident({ resolvedAt: T0 + 20_000 }) });
      await sink.flush();
      await step(2_000);
      expect(bodies.slice(5).map((b) => [b.status, b.alerts[0]!.endsAt])).toEqual([
        [503, new Date(T0 + 20_000).toISOString()],
        [200, new Date(T0 + 20_000).toISOString()],
      ]);
      // Nothing is firing: the resend a minute on posts nothing.
      await step(60_000);
      expect(bodies).toHaveLength(7);
      off();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a post Alertmanager refuses as bad (400) is not tried again', async () => {
    am = await startHttpSink(400);
    const clock = new FakeClock(T0);
    const events = new Emitter<{ incident: IncidentUpdate; alert: Alert }>();
    const sink = new AlertmanagerSink(am.url, { clock, resendMs: 60_000 });
    const off = sink.attach({ on: events.on.bind(events), incidents: () => [], rules: () => DEFAULT_RULES });
    events.emit('incident', { change: 'opened', incident: incident() });
    await sink.flush();
    for (let t = 0; t < 30_000; t += 1000) {
      await clock.advance(1000);
      await sink.flush();
    }
    expect(am.requests).toHaveLength(1);
    off();
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => new AlertmanagerSink('ftp://am.example')).toThrow(/Alertmanager URL/);
  });
});
