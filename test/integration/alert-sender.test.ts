// Two apps on one config and data folder (the desktop app and `serve`) both watch the agents and
// raise the same alerts; only one of them posts them (to the alert webhook and to Alertmanager) and
// keeps the on-call files (timelines, open incidents, history), the other says so and takes over
// once the first one stops. Two `serve`s on one data folder never run: the second is refused, naming the
// first, and a command on that folder attaches to the first instead.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { TeamStore } from '../../src-main/core/teams';
import { runCli, runCliUntil, type CliRun } from '../helpers/cli';
import type { AlertStatusDTO, AnyEvent } from '../../src-shared/contract';
import type { Alert } from '../../src-main/core/monitor';
import { alertsPostedElsewhereWords } from '../../src-shared/vocabulary';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { addEmulatedTeam, startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import { startHttpSink, type HttpSink } from '../helpers/http-sink';
import type { Emulator } from '../../src-main/emulator';

/**
 * Sets the first app's alert webhook and Alertmanager to `sink`, and waits until the second app
 * follows the config (the team, the webhook and Alertmanager).
 */
async function alertsToSink(sink: HttpSink, first: TestCompanion, second: TestCompanion): Promise<void> {
  await first.ok('settings.update', {
    patch: { alertWebhookUrl: `${sink.url}/alerts`, alertmanagerUrl: `${sink.url}/am/` },
  });
  await waitFor(async () => {
    const s = await second.ok<{ alertmanagerUrl: string | null }>('settings.get');
    return s.alertmanagerUrl !== null && (await second.ok<unknown[]>('teams.list')).length === 1;
  }, 5000);
}

describe('the alerts posted by two apps on one data folder', () => {
  let emu: Emulator;
  let dir: string;
  let sink: HttpSink;
  let first: TestCompanion;
  let teamId = '';
  let second: TestCompanion;
  const secrets = new MemorySecretStore();
  const secondEvents: AnyEvent[] = [];
  /** The alerts each app's monitor raised (what goes to its sinks). */
  const raised: { first: Alert[]; second: Alert[] } = { first: [], second: [] };
  let secondPolls = 0;
  /** Some poll cycles of the second app: time for any post it made to land. */
  const settle = async () => {
    const until = secondPolls + 6;
    await waitFor(() => secondPolls >= until, 5000);
  };
  /** The webhook's posts, and the incidents of Alertmanager's posts. */
  const webhookPosts = () => sink.requests.filter((r) => r.url.endsWith('/alerts') && !r.url.includes('/am/'));
  const amIncidents = () =>
    sink.requests
      .filter((r) => r.url.endsWith('/am/api/v2/alerts'))
      .flatMap((r) => JSON.parse(r.body.toString('utf8')) as Array<{ annotations: { incident_id: string } }>)
      .map((a) => a.annotations.incident_id);
  const incidentsOf = (alerts: Alert[]) => new Set(alerts.flatMap((a) => (a.parts ?? [a]).map((p) => p.incidentId)));
  /** The lines of a file in the shared data folder, parsed. */
  const linesOf = async <T>(file: string): Promise<T[]> =>
    (await readFile(path.join(dir, 'data', file), 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as T);
  /** These apps raised an alert for the drop. */
  const bothRaised = async (from: { first: number; second: number }, apps: Array<'first' | 'second'>) => {
    for (const app of apps) await waitFor(() => raised[app].length - from[app] >= 1, 10_000);
  };

  emulatorSuite('cc-alert-sender-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    sink = await startHttpSink();
    const options = { secrets, poll: { intervalMs: 300, fastIntervalMs: 150 }, alertSenderRetryMs: 100 };
    first = await startTestCompanion(dir, options);
    second = await startTestCompanion(dir, { ...options, onEvent: (e) => secondEvents.push(e) });
    first.companion.events.on('alert', (a) => raised.first.push(a));
    second.companion.events.on('alert', (a) => raised.second.push(a));
    second.companion.events.on('poll', () => secondPolls++);
    // A second connected agent: a drop repeated on one agent within a minute is not alerted again.
    await control(emu, 'POST', '/teams/demo/agents', {
      agentId: 'agent-other',
      state: 'connected',
      phone: '15550100008',
    });
    teamId = await addEmulatedTeam(first.ok, emu, [{ agentId: 'agent-connected' }, { agentId: 'agent-other' }]);
    await alertsToSink(sink, first, second);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await sink?.close();
  });

  it('only the first app posts; the second says which app does', async () => {
    expect((await first.ok<AlertStatusDTO>('alerts.status')).alertsPostedBy).toBeNull();
    const status = await second.ok<AlertStatusDTO>('alerts.status');
    expect(status.alertsPostedBy).toMatchObject({ pid: process.pid });
    expect(alertsPostedElsewhereWords(status.alertsPostedBy!.pid)).toBe(
      `Another app on this data folder (process ${process.pid}) posts the alerts to the webhook and Alertmanager, so they are not posted twice; this app posts them once that app stops.`,
    );

    const from = { first: raised.first.length, second: raised.second.length };
    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 1 });
    await bothRaised(from, ['first', 'second']);
    await waitFor(() => webhookPosts().length >= raised.first.length - from.first, 5000);
    await settle();
    // One webhook post per alert of the first app, none of the second's; Alertmanager hears of the
    // first app's incidents only.
    expect(raised.first.length - from.first).toBeGreaterThan(0);
    expect(webhookPosts()).toHaveLength(raised.first.length - from.first);
    const mine = incidentsOf(raised.first);
    expect(amIncidents().length).toBeGreaterThan(0);
    expect(amIncidents().filter((id) => !mine.has(id))).toEqual([]);

    // The files are the first app's alone: the agent's timeline once (not once per app), and the
    // history with the first app's resolved incidents only (the agent's incident resolves when the
    // agent is removed; a drop resolves only once the agent stays connected for a while).
    await first.companion.monitor().flush();
    const timeline = await linesOf<{ to: string }>('timeline/agent-connected.jsonl');
    expect(timeline.map((e) => e.to)).toEqual(
      (await first.companion.monitor().timeline('agent-connected')).map((e) => e.to),
    );
    expect((await second.companion.monitor().timeline('agent-connected')).length).toBeGreaterThan(0);
    await first.ok('agents.remove', { teamId, agentId: 'agent-connected' });
    await waitFor(async () => (await second.ok<unknown[]>('alerts.history', {})).length > 0, 10_000);
    const history = await waitFor(async () => {
      const lines = await linesOf<{ id: string }>('incident-history.jsonl').catch(() => []);
      return lines.length > 0 ? lines : null;
    }, 5000);
    expect(history.map((r) => r.id).filter((id) => !mine.has(id))).toEqual([]);
  });

  it('the second app posts once the first one stops, and its windows are told', async () => {
    const told = secondEvents.length;
    await first.close();
    const status = await waitFor(
      () => secondEvents.slice(told).find((e) => e.name === 'alerts.status' && e.payload.alertsPostedBy === null),
      5000,
    );
    expect(status).toBeDefined();
    expect((await second.ok<AlertStatusDTO>('alerts.status')).alertsPostedBy).toBeNull();
    // The history the second app shows is the file's now (the first app's resolved incidents).
    const kept = await linesOf<{ id: string }>('incident-history.jsonl');
    expect((await second.ok<Array<{ id: string }>>('alerts.history', {})).map((r) => r.id).sort()).toEqual(
      kept.map((r) => r.id).sort(),
    );
    // The first app, stopping, wrote that it sees nothing any more; the second one, taking the files
    // over, wrote what it sees (availability counts the time in between as seen).
    const timeline = await linesOf<{ from: string; to: string }>('timeline/agent-other.jsonl');
    expect(timeline.slice(-2).map((e) => [e.from, e.to])).toEqual([
      ['connected', 'unknown'],
      ['unknown', 'connected'],
    ]);

    const posted = webhookPosts().length;
    const from = { first: raised.first.length, second: raised.second.length };
    await control(emu, 'POST', '/agents/agent-other/drop', { seconds: 1 });
    await bothRaised(from, ['second']);
    await waitFor(() => webhookPosts().length - posted >= raised.second.length - from.second, 5000);
    const its = incidentsOf(raised.second.slice(from.second));
    await waitFor(() => amIncidents().some((id) => its.has(id)), 5000);
    await settle();
    expect(webhookPosts().length - posted).toBe(raised.second.length - from.second);
  });
});

describe('taking over from an app that never saw the trouble', () => {
  let emu: Emulator;
  let dir: string;
  let sink: HttpSink;
  let first: TestCompanion;
  let second: TestCompanion;
  const secrets = new MemorySecretStore();
  const raisedBySecond: Alert[] = [];

  emulatorSuite('cc-alert-handover-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    sink = await startHttpSink();
    // The first app polls once a minute: a drop after its first poll is not seen by it in this test.
    first = await startTestCompanion(dir, { secrets, poll: { intervalMs: 60_000 }, alertSenderRetryMs: 100 });
    second = await startTestCompanion(dir, {
      secrets,
      poll: { intervalMs: 300, fastIntervalMs: 150 },
      alertSenderRetryMs: 100,
    });
    second.companion.events.on('alert', (a) => raisedBySecond.push(a));
    await addEmulatedTeam(first.ok, emu, [{ agentId: 'agent-connected' }]);
    await alertsToSink(sink, first, second);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await sink?.close();
  });

  it('the webhook and Alertmanager hear of a drop only the second app saw, as soon as it posts', async () => {
    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 30 });
    const alert = await waitFor(() => raisedBySecond.find((a) => a.agentIds.includes('agent-connected')), 10_000);
    // Raised by the app that does not post: the team's channels have heard nothing.
    expect(sink.requests).toEqual([]);

    await first.close();
    const summary = await waitFor(
      () => sink.requests.find((r) => r.url.endsWith('/alerts') && !r.url.includes('/am/')),
      5000,
    );
    const posted = JSON.parse(summary.body.toString('utf8')) as { text: string; alert: Alert };
    expect(posted.alert).toMatchObject({
      kind: 'still-down',
      agentIds: ['agent-connected'],
      title: 'Still down when this app took over posting the alerts: 1 incident',
    });
    expect(posted.text).toContain('agent-connected: reconnecting for');
    // Alertmanager at once, not at the next resend a minute later.
    const am = await waitFor(() => sink.requests.find((r) => r.url.endsWith('/am/api/v2/alerts')), 5000);
    expect(
      (JSON.parse(am.body.toString('utf8')) as Array<{ annotations: { incident_id: string } }>).map(
        (a) => a.annotations.incident_id,
      ),
    ).toEqual([alert.incidentId]);
  });
});

describe('an acknowledgement or a snooze made in either app', () => {
  let emu: Emulator;
  let dir: string;
  let first: TestCompanion;
  let second: TestCompanion;
  const secrets = new MemorySecretStore();
  const firstEvents: AnyEvent[] = [];

  emulatorSuite('cc-alert-acks-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    const options = { secrets, poll: { intervalMs: 300, fastIntervalMs: 150 }, alertSenderRetryMs: 100 };
    first = await startTestCompanion(dir, { ...options, onEvent: (e) => firstEvents.push(e) });
    second = await startTestCompanion(dir, options);
    await addEmulatedTeam(first.ok, emu, [{ agentId: 'agent-connected' }]);
    await waitFor(async () => (await second.ok<unknown[]>('teams.list')).length === 1, 5000);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('made in the app that does not post, is acknowledged in the posting app too', async () => {
    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 30 });
    type Open = Array<{ id: string; agentId: string | null; acknowledgedAt: number | null }>;
    const openIn = (app: TestCompanion) =>
      waitFor(async () => {
        const list = await app.ok<Open>('alerts.list');
        return list.find((i) => i.agentId === 'agent-connected') ?? null;
      }, 10_000);
    const theirs = await openIn(second);
    await openIn(first);
    await second.ok('alerts.acknowledge', { incidentId: theirs.id });
    const acked = await waitFor(async () => {
      const list = await first.ok<Open>('alerts.list');
      return list.find((i) => i.agentId === 'agent-connected' && i.acknowledgedAt !== null) ?? null;
    }, 5000);
    expect(acked.acknowledgedAt).toBeGreaterThan(0);
  });

  it('set in the app that does not post silences the posting one, whose windows are told', async () => {
    const told = firstEvents.length;
    const set = await second.ok<AlertStatusDTO>('alerts.snooze', { minutes: 30 });
    expect(set.snoozedUntil).not.toBeNull();
    const status = await waitFor(
      () =>
        firstEvents.slice(told).find((e) => e.name === 'alerts.status' && e.payload.snoozedUntil === set.snoozedUntil),
      5000,
    );
    expect(status).toBeDefined();
    expect((await first.ok<AlertStatusDTO>('alerts.status')).snoozedUntil).toBe(set.snoozedUntil);
    await first.ok('alerts.unsnooze');
    await waitFor(async () => (await second.ok<AlertStatusDTO>('alerts.status')).snoozedUntil === null, 5000);
  });
});

describe('serve and the alerts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-serve-alert-sender-'));
    await mkdir(path.join(dir, 'renderer'));
    await writeFile(path.join(dir, 'renderer', 'index.html'), '<!doctype html><title>test renderer</title>');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs serve until `during` (called with its ready line) ends. */
  async function serve(configDir: string, during: (ready: Record<string, unknown>) => Promise<void>): Promise<CliRun> {
    const stop = new AbortController();
    let checks: Promise<void> | null = null;
    const run = await runCli(
      [
        'serve',
        '--json',
        '--port',
        '0',
        '--tunnel-port',
        '0',
        '--renderer-dir',
        path.join(dir, 'renderer'),
        '--config-dir',
        configDir,
      ],
      {
        signal: stop.signal,
        onStdout: (_chunk, all) => {
          if (checks || !all.includes('\n')) return;
          checks = during(JSON.parse(all.split('\n')[0]!) as Record<string, unknown>).finally(() => stop.abort());
        },
      },
    );
    await checks;
    return run;
  }

  it('a second serve on the data folder is refused naming the first, which posts the alerts; a command attaches to it', async () => {
    const configDir = path.join(dir, 'config');
    const store = await TeamStore.open({
      configDir,
      secrets: new MemorySecretStore(),
      clientFactory: createServiceClient,
    });
    await store.updateSettings({ alertWebhookUrl: 'http://127.0.0.1:9/alerts' });
    let first: Record<string, unknown> | null = null;
    let secondRun: CliRun | null = null;
    let listen: Awaited<ReturnType<typeof runCliUntil>> | null = null;
    const firstRun = await serve(configDir, async (ready) => {
      first = ready;
      secondRun = await runCli(
        ['serve', '--json', '--port', '0', '--renderer-dir', path.join(dir, 'renderer'), '--config-dir', configDir],
        {},
      );
      listen = await runCliUntil(
        ['listen', '--json', '--config-dir', configDir],
        {},
        {
          until: (lines) => lines.some((l) => l.event === 'ready' || 'error' in l),
        },
      );
    });
    expect(firstRun.code).toBe(0);
    // The first posts the alerts itself.
    expect(first).toMatchObject({ event: 'ready', alertsPostedBy: null });
    // The second never starts: it names the first (this process's serve) and says commands attach to it.
    expect(secondRun!.code).not.toBe(0);
    expect(secondRun!.stdout).toBe('');
    expect(secondRun!.stderr).toContain(`is owned by channel-companion serve (process ${process.pid}, since `);
    expect(secondRun!.stderr).toContain('Commands attach to the running one');
    // A command on the same folder is a client of the first.
    expect(listen!.code).toBe(0);
    expect(listen!.json().find((l) => l.event === 'ready')).toMatchObject({
      companion: { pid: process.pid, shell: 'serve' },
    });
  });
});
