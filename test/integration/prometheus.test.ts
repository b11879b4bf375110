// Debian's real Prometheus scraping `channel-companion monitor --metrics-port` against the
// emulator: its query API returns the agent's health, and the drop of a number shows as
// `reconnecting` there. The example rule file in docs/prometheus is checked with promtool and loaded.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { control, startTestEmulator, waitFor } from '../helpers/emulator';
import {
  findBinary,
  missingEngine,
  runMonitor,
  startEngine,
  type Engine,
  type MonitorRun,
} from '../helpers/prometheus-engines';

const PROMETHEUS = findBinary('prometheus');
const PROMTOOL = findBinary('promtool');
const why = missingEngine(PROMETHEUS, 'prometheus');
const RULES = path.resolve(import.meta.dirname, '../../docs/prometheus/channel-companion.rules.yml');

interface Query {
  status: string;
  data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

describe.skipIf(Boolean(why))(`Prometheus scrapes the monitor${why ? ` (skipped: ${why})` : ''}`, () => {
  let emu: Emulator;
  let dir: string;
  let prom: Engine | null = null;
  let monitor: MonitorRun | null = null;

  beforeAll(async () => {
    emu = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-prom-'));
    monitor = await runMonitor(
      emu,
      dir,
      ['agent-connected', 'agent-unlinked'],
      ['--interval', '0.5', '--fast-interval', '0.25', '--metrics-port', '0'],
    );
    const metricsUrl = String(
      (await waitFor(() => monitor!.lines().find((l) => l.event === 'metrics'), 10_000, 'the metrics line')).url,
    );
    const target = new URL(metricsUrl).host;
    prom = await startEngine(
      PROMETHEUS!,
      {
        'prometheus.yml': [
          'global: { scrape_interval: 1s, evaluation_interval: 1s }',
          'rule_files: [channel-companion.rules.yml]',
          'scrape_configs:',
          '  - job_name: channel-companion',
          `    static_configs: [{ targets: ['${target}'] }]`,
        ].join('\n'),
        'channel-companion.rules.yml': await readFile(RULES, 'utf8'),
      },
      (d, port) => [
        `--config.file=${d}/prometheus.yml`,
        `--storage.tsdb.path=${d}/data`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
    );
  }, 60_000);

  afterAll(async () => {
    await monitor?.stop();
    await prom?.stop();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const query = async (q: string): Promise<Query['data']['result']> => {
    const res = await fetch(`${prom!.url}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await res.json()) as Query;
    expect(body.status).toBe('success');
    return body.data.result;
  };
  const value = async (q: string) => (await query(q)).map((r) => Number(r.value[1]));

  it('the query API returns each agent\'s health; after a drop, "reconnecting"', async () => {
    const targets = await waitFor(
      async () => {
        const res = (await (await fetch(`${prom!.url}/api/v1/targets`)).json()) as {
          data: { activeTargets: Array<{ health: string; lastError: string }> };
        };
        return res.data.activeTargets[0]?.health === 'up' ? res.data.activeTargets : null;
      },
      20_000,
      'the scrape target up',
    );
    expect(targets[0]!.lastError).toBe('');
    await waitFor(
      async () => (await value('channel_companion_agent_health{agent="agent-connected",health="connected"}'))[0] === 1,
      20_000,
      'connected in Prometheus',
    );
    const labels = (await query('channel_companion_agent_health{agent="agent-connected",health="connected"}'))[0]!
      .metric;
    expect(labels).toMatchObject({
      job: 'channel-companion',
      team: 'Support desk',
      agent: 'agent-connected',
      health: 'connected',
    });
    expect(await value('channel_companion_agent_needs_scan{agent="agent-unlinked"}')).toEqual([1]);

    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 60 });
    await waitFor(
      async () =>
        (await value('channel_companion_agent_health{agent="agent-connected",health="reconnecting"}'))[0] === 1,
      20_000,
      'reconnecting in Prometheus',
    );
    expect(await value('channel_companion_agent_health{agent="agent-connected",health="connected"}')).toEqual([0]);
    expect(await value('channel_companion_agent_connected{agent="agent-connected"}')).toEqual([0]);
    expect(await value('channel_companion_agent_linked{agent="agent-connected"}')).toEqual([1]);
    expect((await value('sum(channel_companion_poll_duration_seconds_count{team="Support desk"})'))[0]).toBeGreaterThan(
      0,
    );
    expect((await value('channel_companion_alerts_total{kind="reconnecting"}'))[0]).toBe(1);
    await control(emu, 'POST', '/agents/agent-connected/recover');
  }, 60_000);

  it('the example rule file passes promtool and is loaded by Prometheus', async () => {
    // promtool ships with Debian's prometheus package; checked when it is there.
    if (PROMTOOL) {
      const check = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(check.stdout + check.stderr).toMatch(/SUCCESS: 5 rules found/);
      expect(check.status).toBe(0);
    }
    const groups = await waitFor(
      async () => {
        const res = (await (await fetch(`${prom!.url}/api/v1/rules`)).json()) as {
          data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string }> }> };
        };
        return res.data.groups.length > 0 ? res.data.groups : null;
      },
      20_000,
      'the rules loaded',
    );
    expect(groups[0]!.name).toBe('channel-companion');
    expect(groups[0]!.rules.map((r) => r.name)).toContain('ChannelCompanionAgentNeedsScan');
    // The needs-scan rule sees the unlinked agent.
    await waitFor(
      async () => {
        const res = (await (await fetch(`${prom!.url}/api/v1/alerts`)).json()) as {
          data: { alerts: Array<{ labels: Record<string, string> }> };
        };
        return res.data.alerts.some(
          (a) => a.labels['alertname'] === 'ChannelCompanionAgentNeedsScan' && a.labels['agent'] === 'agent-unlinked',
        );
      },
      20_000,
      'the needs-scan rule pending',
    );
  }, 60_000);
});
