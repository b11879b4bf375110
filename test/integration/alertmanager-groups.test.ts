// Debian's real Alertmanager fed by `channel-companion monitor --alertmanager URL` against the
// emulator: 20 agents unlinked at one moment are 20 alerts of ONE incident group, which the route
// of docs/prometheus/alertmanager.yml (group_by incident_group) makes one Alertmanager group and
// one notification at the receiver; re-pairing one agent resolves its alert alone.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { defaultSeed, type Emulator } from '../../src-main/emulator';
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

const AGENTS = Array.from({ length: 20 }, (_, i) => `bulk-${String(i + 1).padStart(2, '0')}`);

interface AmGroup {
  labels: Record<string, string>;
  alerts: Array<{ labels: Record<string, string>; status: { state: string } }>;
}
interface Notification {
  status: 'firing' | 'resolved';
  groupLabels: Record<string, string>;
  alerts: Array<{ status: 'firing' | 'resolved'; labels: Record<string, string> }>;
}

/** The documented example, its receivers pointed at the test's receiver and its waits shortened. */
async function exampleConfig(receiver: string): Promise<string> {
  const text = await readFile(path.join(__dirname, '../../docs/prometheus/alertmanager.yml'), 'utf8');
  const groupBy = /^ {2}group_by: \[(.*)\]$/m.exec(text);
  expect(groupBy?.[1]).toContain('incident_group');
  return text
    .replace(/url: http:\/\/127\.0\.0\.1:5001\/\S+/g, `url: ${receiver}`)
    .replace(/^ {2}group_wait: .*$/m, '  group_wait: 2s')
    .replace(/^ {2}group_interval: .*$/m, '  group_interval: 1h');
}

describe.skipIf(Boolean(why))(
  `Alertmanager: one incident group, one group, one notification${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let emu: Emulator;
    let dir: string;
    let am: Engine | null = null;
    let receiver: HttpSink;
    let monitor: MonitorRun | null = null;
    const lines = () => monitor?.lines() ?? [];
    /** What the receivers of the route heard (both point at the test's receiver). */
    const notifications = (): Notification[] =>
      receiver.requests.map((r) => JSON.parse(r.body.toString('utf8')) as Notification);
    const groups = async (): Promise<AmGroup[]> =>
      ((await (await fetch(`${am!.url}/api/v2/alerts/groups`)).json()) as AmGroup[]).filter((g) =>
        g.alerts.some((a) => a.labels['source'] === 'channel-companion'),
      );

    beforeAll(async () => {
      emu = await startTestEmulator();
      const team = defaultSeed().teams[0]!.id;
      for (const [i, agentId] of AGENTS.entries())
        await control(emu, 'POST', `/teams/${team}/agents`, {
          agentId,
          state: 'connected',
          phone: `155502000${String(i).padStart(2, '0')}`,
        });
      receiver = await startHttpSink();
      dir = await mkdtemp(path.join(tmpdir(), 'cc-am-groups-'));
      am = await startEngine(ALERTMANAGER!, { 'alertmanager.yml': await exampleConfig(receiver.url) }, (d, port) => [
        `--config.file=${d}/alertmanager.yml`,
        `--storage.path=${d}/data`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
      ]);
      monitor = await runMonitor(emu, dir, AGENTS, [
        '--interval',
        '0.5',
        '--fast-interval',
        '0.25',
        '--alertmanager',
        am.url,
      ]);
      await waitFor(
        () =>
          lines().filter((l) => l.event === 'health' && (l.agent as { health: string }).health === 'connected')
            .length >= AGENTS.length,
        20_000,
        'every agent connected',
      );
    }, 90_000);

    afterAll(async () => {
      await monitor?.stop();
      await am?.stop();
      await receiver?.close();
      await emu?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('20 agents unlinked at once: one Alertmanager group of 20 alerts, one notification; each resolves on its own', async () => {
      await Promise.all(AGENTS.map((a) => control(emu, 'POST', `/agents/${a}/unlink`)));
      const [group] = await waitFor(
        async () => {
          const g = await groups();
          return g.length > 0 && g.reduce((n, x) => n + x.alerts.length, 0) >= AGENTS.length ? g : null;
        },
        20_000,
        '20 alerts in Alertmanager',
      );
      expect(await groups()).toHaveLength(1);
      expect(group!.alerts).toHaveLength(20);
      expect(Object.keys(group!.labels)).toContain('incident_group');
      expect(new Set(group!.alerts.map((a) => a.labels['agent']))).toEqual(new Set(AGENTS));
      expect(new Set(group!.alerts.map((a) => a.labels['alertname']))).toEqual(new Set(['ChannelNeedsScan']));

      // The receiver hears of the group once, with its 20 alerts. A group notifies again only after
      // group_interval (1 h), so a second notification could only be another group's: the one group, still
      // alone once the monitor has posted the re-paired agent's resolution below, leaves none to come.
      await waitFor(() => notifications().length > 0, 20_000, 'the notification at the receiver');
      expect(notifications()).toHaveLength(1);
      const [n] = notifications();
      expect(n!.status).toBe('firing');
      expect(n!.groupLabels['incident_group']).toBe(group!.labels['incident_group']);
      expect(n!.alerts).toHaveLength(20);

      // The monitor's alert lines: one per incident, each carrying the one notice of the group.
      const notices = lines()
        .filter((l) => l.event === 'alert')
        .map((l) => (l.alert as { notice?: { id: string; title: string } }).notice);
      expect(notices).toHaveLength(20);
      expect(new Set(notices.map((n) => n?.id)).size).toBe(1);
      expect(notices[0]!.title).toBe('20 agents need a QR scan');

      // Each agent is its own alert: re-pairing one resolves it alone.
      const client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: DEMO_KEY });
      await client.startPairing(AGENTS[0]!);
      await client.close();
      await control(emu, 'POST', `/agents/${AGENTS[0]}/scan`, { phone: '15550200000' });
      await waitFor(
        async () => (await groups())[0]?.alerts.every((a) => a.labels['agent'] !== AGENTS[0]),
        20_000,
        'the re-paired agent resolved',
      );
      expect((await groups())[0]!.alerts).toHaveLength(19);
      expect(await groups()).toHaveLength(1);
      expect(notifications()).toHaveLength(1);
    }, 90_000);
  },
);
