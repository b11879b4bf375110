// One incident, two shells. The app's companion (hosted as the app hosts it: its contract gives the words of
// the in-app list and of the desktop notifications, and it posts to its Alertmanager) runs for the data
// folder; `monitor --json` attaches to it and prints its incidents while one agent drops and comes back and
// another needs a scan: the same ids, starts, titles and bodies everywhere, and only the app's Alertmanager is
// posted to (a CLI --alertmanager beside it is refused, so nothing pages twice). "Snooze until tomorrow",
// chosen just after midnight from the CLI, is the companion's one snooze: 08:00 that same morning.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostCompanion } from '../../src-main/app/companion/hosted';
import type { Clock } from '../../src-main/core/ports';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import type { AlertEventDTO, IncidentDTO } from '../../src-shared/contract';
import { runCli, runCliUntil, type JsonLine } from '../helpers/cli';
import { control, DEMO_KEY, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import type { HttpSink } from '../helpers/http-sink';

let emu: Emulator;
let sink: HttpSink;
let dir: string;

emulatorSuite('cc-same-incident-', (s) => ({ emu, sink, dir } = s));

/** Five past midnight, local time, when the test starts; then real time goes on. */
const T0 = new Date(2025, 2, 12, 0, 5, 0, 0).getTime();
const MORNING = new Date(2025, 2, 12, 8, 0, 0, 0).getTime();
/** The shift that puts the wall clock at T0 now. */
const SHIFT = T0 - Date.now();
const justAfterMidnight: Clock = {
  now: () => Date.now() + SHIFT,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

const TEAM = 'Support desk';
const INCIDENTS = ['reconnecting agent-connected', 'needs-scan agent-unlinked'];

interface Words {
  title: string;
  body: string;
}

/** The words of each incident an Alertmanager was told about, by "kind agent" (the newest post wins). */
function annotations(prefix: string): Map<string, Words> {
  const out = new Map<string, Words>();
  for (const r of sink.requests.filter((q) => q.url.startsWith(prefix))) {
    for (const a of JSON.parse(r.body.toString('utf8')) as Array<{
      labels: Record<string, string>;
      annotations: Record<string, string>;
    }>) {
      out.set(`${a.labels['kind']} ${a.labels['agent']}`, {
        title: a.annotations['summary']!,
        body: a.annotations['description']!,
      });
    }
  }
  return out;
}

describe('the same incident through the app and the CLI', () => {
  it('gives the same incidents, the same words and the same snooze end', async () => {
    const base = sink.url.replace(/\/hook$/, '');
    const configDir = path.join(dir, 'config');
    const secretStore = new MemorySecretStore();
    const hosted = await hostCompanion({
      shell: 'serve',
      configDir,
      secrets: secretStore,
      clock: justAfterMidnight,
      poll: { intervalMs: 200, fastIntervalMs: 100 },
      tunnelPort: 0,
    });
    const { companion, contract, handlers } = hosted;
    const appAlerts: AlertEventDTO[] = [];
    contract.events.onAny((e) => {
      if (e.name === 'alert') appAlerts.push(e.payload);
    });
    const ok = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    };
    try {
      // The team is added in the app, with its Alertmanager; the CLI watches the team the app saved.
      ok(await handlers['settings.update']({ patch: { alertmanagerUrl: `${base}/app` } }));
      const { teamId } = ok(
        await handlers['teams.add']({
          label: TEAM,
          baseUrl: emu.baseUrl,
          apiKey: DEMO_KEY,
          agents: [{ agentId: 'agent-connected' }, { agentId: 'agent-unlinked' }],
        }),
      );
      const opts = { configDir, secretStore, clock: justAfterMidnight };
      // Beside a running companion, a pager of the CLI's own never starts.
      const pager = await runCli(['monitor', '--team', TEAM, '--alertmanager', `${base}/cli`], opts);
      expect(pager.code).toBe(2);
      expect(pager.stderr).toContain('--alertmanager');
      expect(pager.stderr).toContain(`channel-companion serve (process ${process.pid}`);

      const appHealth = (agentId: string) =>
        companion
          .monitor()
          .snapshot()
          .find((s) => s.agentId === agentId)?.health;
      const health = (l: JsonLine) => l.agent as { agentId: string; health: string } | undefined;
      const cliIncidents = (lines: JsonLine[]) =>
        lines
          .filter((l) => l.event === 'alert' || l.event === 'incident')
          .map((l) => (l.event === 'alert' ? (l.alert as AlertEventDTO).incident : (l.incident as IncidentDTO)));
      const run = await runCliUntil(['monitor', '--team', TEAM, '--json'], opts, {
        when: (lines) =>
          lines.some(
            (l) =>
              l.event === 'health' && health(l)?.agentId === 'agent-connected' && health(l)?.health === 'connected',
          ),
        act: async () => {
          await waitFor(
            () => appHealth('agent-connected') === 'connected',
            8000,
            'the app sees agent-connected connected',
          );
          await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 2 });
        },
        until: (lines) =>
          INCIDENTS.every((k) => cliIncidents(lines).some((i) => `${i.kind} ${i.agentId}` === k)) &&
          lines.some(
            (l) =>
              l.event === 'health' &&
              health(l)?.agentId === 'agent-connected' &&
              l.previous === 'reconnecting' &&
              health(l)?.health === 'connected',
          ),
      });
      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);
      const lines = run.json();
      expect(lines[0]).toMatchObject({ event: 'started', companion: { pid: process.pid, shell: 'serve' } });
      expect(lines[0]!.agents).toEqual([
        { teamId, team: TEAM, agentId: 'agent-connected' },
        { teamId, team: TEAM, agentId: 'agent-unlinked' },
      ]);

      // The CLI's incidents, by kind and agent (the newest line wins).
      const cli = new Map<string, IncidentDTO>();
      for (const i of cliIncidents(lines)) cli.set(`${i.kind} ${i.agentId}`, i);
      // The app's: what its in-app list and its notifications show.
      const appIncident = (k: string) =>
        appAlerts.filter((x) => `${x.incident.kind} ${x.incident.agentId}` === k && x.notify).at(-1)?.incident;
      await waitFor(
        () => INCIDENTS.every((k) => appIncident(k) !== undefined && annotations('/app/').has(k)),
        8000,
        'the app told of both incidents, and its Alertmanager',
      );

      for (const k of INCIDENTS) {
        const mine = cli.get(k)!;
        const app = appIncident(k)!;
        // The same incident: its id, team, start and severity, not a copy worked out again.
        expect(mine).toMatchObject({ id: app.id, teamId, openedAt: app.openedAt, severity: app.severity });
        const words = { title: mine.title, body: mine.message };
        expect({ title: app.title, body: app.message }).toEqual(words);
        expect(annotations('/app/').get(k)).toEqual(words);
      }
      // One pager: nothing was posted to the CLI's Alertmanager.
      expect(annotations('/cli/').size).toBe(0);
      // The words name the agent (and the number it had), never the team's internal id.
      expect(cli.get('reconnecting agent-connected')!.title).toBe('agent-connected (+15550100001) is reconnecting');
      expect(cli.get('needs-scan agent-unlinked')!.title).toBe('agent-unlinked needs a QR scan');
      for (const w of cli.values()) expect(`${w.title} ${w.message}`).not.toContain(teamId);

      // "Until tomorrow", chosen in the CLI at 00:05: this morning at 08:00, the companion's one snooze.
      const cliSnooze = await runCliUntil(['monitor', '--team', TEAM, '--json', '--snooze', 'tomorrow'], opts, {
        until: (l) => l.some((x) => x.event === 'started'),
      });
      expect(cliSnooze.code).toBe(0);
      const started = cliSnooze.json().find((l) => l.event === 'started')!;
      expect(Date.parse(started.snoozedUntil as string)).toBe(MORNING);
      expect(ok(await handlers['alerts.status']({})).snoozedUntil).toBe(MORNING);
    } finally {
      await hosted.close();
    }
  }, 40_000);
});
