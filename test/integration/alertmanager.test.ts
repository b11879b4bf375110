// Debian's real Alertmanager fed by `channel-companion monitor --alertmanager URL` (the companion it starts
// for the run posts) against the emulator: an unlinked number fires (and reaches the webhook receiver Alertmanager routes to), its
// re-pairing resolves it, and a silence made in Alertmanager is honoured (the alert shows as
// suppressed and is not routed to the receiver).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import type { Emulator } from '../../src-main/emulator';
import { control, DEMO_KEY, startTestEmulator, waitFor } from '../helpers/emulator';
import { startHttpSink, type HttpSink } from '../helpers/http-sink';
import {
  findBinary,
  missingEngine,
  runMonitor,
  startEngine,
  type Engine,
  type MonitorRun,
} from '../helpers/prometheus-engines';

const ALERTMANAGER = findBinary('prometheus-alertmanager', 'alertmanager');
const why = missingEngine(ALERTMANAGER, 'prometheus-alertmanager');

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  status: { state: 'active' | 'suppressed' | 'unprocessed'; silencedBy: string[] };
}
interface Notification {
  status: 'firing' | 'resolved';
  alerts: Array<{ status: 'firing' | 'resolved'; labels: Record<string, string> }>;
}

describe.skipIf(Boolean(why))(`Alertmanager receives the monitor's alerts${why ? ` (skipped: ${why})` : ''}`, () => {
  let emu: Emulator;
  let dir: string;
  let am: Engine | null = null;
  let receiver: HttpSink;
  let monitor: MonitorRun | null = null;
  const lines = () => monitor?.lines() ?? [];

  const notifications = (): Notification[] =>
    receiver.requests.map((r) => JSON.parse(r.body.toString('utf8')) as Notification);
  const routed = (agent: string) =>
    notifications().flatMap((n) => n.alerts.filter((a) => a.labels['agent'] === agent).map((a) => a.status));
  const amAlerts = async (): Promise<AmAlert[]> =>
    (await (await fetch(`${am!.url}/api/v2/alerts`)).json()) as AmAlert[];

  beforeAll(async () => {
    emu = await startTestEmulator();
    receiver = await startHttpSink();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-am-'));
    am = await startEngine(
      ALERTMANAGER!,
      {
        'alertmanager.yml': [
          'route:',
          '  receiver: webhook',
          '  group_by: [alertname, team, agent]',
          '  group_wait: 100ms',
          '  group_interval: 1s',
          '  repeat_interval: 1h',
          'receivers:',
          '  - name: webhook',
          '    webhook_configs:',
          `      - url: ${receiver.url}`,
          '        send_resolved: true',
        ].join('\n'),
      },
      (d, port) => [
        `--config.file=${d}/alertmanager.yml`,
        `--storage.path=${d}/data`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
      ],
    );
    // A silence for one agent, made in Alertmanager before anything fires.
    const now = Date.now();
    const silence = await fetch(`${am.url}/api/v2/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        matchers: [{ name: 'agent', value: 'agent-flaky', isRegex: false, isEqual: true }],
        startsAt: new Date(now - 1000).toISOString(),
        endsAt: new Date(now + 3_600_000).toISOString(),
        createdBy: 'on-call',
        comment: 'being re-paired',
      }),
    });
    expect(silence.status).toBe(200);

    monitor = await runMonitor(
      emu,
      dir,
      ['agent-connected', 'agent-flaky'],
      ['--interval', '0.3', '--fast-interval', '0.15', '--alertmanager', am.url],
    );
    await waitFor(
      () =>
        lines().filter((l) => l.event === 'health' && (l.agent as { health: string }).health === 'connected').length >=
        2,
      10_000,
      'both agents connected',
    );
  }, 60_000);

  afterAll(async () => {
    await monitor?.stop();
    await am?.stop();
    await receiver?.close();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('an unlinked number fires with stable labels; re-pairing it resolves the alert', async () => {
    // The companion started for the command posts to the Alertmanager given for this run.
    expect(lines()[0]).toMatchObject({ event: 'started', companion: null, alertmanager: am!.url });
    await control(emu, 'POST', '/agents/agent-connected/unlink');
    const firing = await waitFor(
      async () => (await amAlerts()).find((a) => a.labels['agent'] === 'agent-connected'),
      15_000,
      'the alert in Alertmanager',
    );
    expect(firing.labels).toEqual({
      alertname: 'ChannelNeedsScan',
      team: 'Support desk',
      agent: 'agent-connected',
      kind: 'needs-scan',
      severity: 'critical',
      source: 'channel-companion',
      incident_group: expect.any(String),
    });
    expect(firing.annotations['summary']).toMatch(/^agent-connected/);
    expect(firing.status.state).toBe('active');
    await waitFor(
      () => routed('agent-connected').includes('firing'),
      15_000,
      'the firing notification at the receiver',
    );

    // Re-pairing: a person starts pairing (as the app does) and scans the QR.
    const client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: DEMO_KEY });
    await client.startPairing('agent-connected');
    await client.close();
    await control(emu, 'POST', '/agents/agent-connected/scan', { phone: '15550100001' });
    await waitFor(
      () => routed('agent-connected').includes('resolved'),
      20_000,
      'the resolved notification at the receiver',
    );
    expect(routed('agent-connected')).toEqual(['firing', 'resolved']);
    expect((await amAlerts()).find((a) => a.labels['agent'] === 'agent-connected')).toBeUndefined();
  }, 60_000);

  it('a silence made in Alertmanager is honoured: the alert is suppressed and never routed', async () => {
    await control(emu, 'POST', '/agents/agent-flaky/unlink');
    const silenced = await waitFor(
      async () => (await amAlerts()).find((a) => a.labels['agent'] === 'agent-flaky'),
      15_000,
      'the silenced alert in Alertmanager',
    );
    expect(silenced.labels).toMatchObject({ alertname: 'ChannelNeedsScan', agent: 'agent-flaky' });
    await waitFor(
      async () => (await amAlerts()).find((a) => a.labels['agent'] === 'agent-flaky')?.status.state === 'suppressed',
      10_000,
      'suppressed',
    );
    const state = (await amAlerts()).find((a) => a.labels['agent'] === 'agent-flaky')!.status;
    expect(state.silencedBy).toHaveLength(1);
    // An alert that is not silenced, raised after it, reaches the receiver; by then the silenced one
    // has had its turn, and the receiver has still heard nothing of it.
    const before = routed('agent-connected').length;
    await control(emu, 'POST', '/agents/agent-connected/unlink');
    await waitFor(() => routed('agent-connected').length > before, 20_000, 'the later, unsilenced notification');
    expect(routed('agent-connected').at(-1)).toBe('firing');
    expect(routed('agent-flaky')).toEqual([]);
  }, 60_000);
});
