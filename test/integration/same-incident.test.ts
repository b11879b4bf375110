// One incident, two shells. The app's composition (the companion and its contract: the words of the
// in-app list and of the desktop notifications, and its Alertmanager) and `monitor --json` (the CLI,
// with its own Alertmanager) watch the same saved team on the emulator while one agent drops and
// comes back and another needs a scan: the same titles and bodies everywhere, with the team's label.
// "Snooze until tomorrow", chosen just after midnight, ends at the same instant in both: 08:00 that
// same morning.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCompanion } from '../../src-main/app/companion/companion';
import { implementContract } from '../../src-main/app/contract';
import { createHandlers } from '../../src-main/app/handlers';
import type { Clock } from '../../src-main/core/ports';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import type { AlertEventDTO } from '../../src-shared/contract';
import { runCliUntil, type JsonLine } from '../helpers/cli';
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
  it('gives the same words and the same snooze end', async () => {
    const base = sink.url.replace(/\/hook$/, '');
    const configDir = path.join(dir, 'config');
    const secretStore = new MemorySecretStore();
    const companion = await createCompanion({
      configDir,
      dataDir: path.join(dir, 'data'),
      secrets: secretStore,
      clock: justAfterMidnight,
      poll: { intervalMs: 200, fastIntervalMs: 100 },
    });
    const contract = implementContract(companion);
    const handlers = createHandlers(contract.implementations);
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
      const appHealth = (agentId: string) =>
        companion
          .monitor()
          .snapshot()
          .find((s) => s.agentId === agentId)?.health;
      const cliAlerts = (lines: JsonLine[]) =>
        lines.filter((l) => l.event === 'alert').flatMap((l) => (l.parts as JsonLine[] | undefined) ?? [l]);
      const run = await runCliUntil(
        [
          'monitor',
          '--team',
          TEAM,
          '--json',
          '--interval',
          '0.2',
          '--fast-interval',
          '0.1',
          '--alertmanager',
          `${base}/cli`,
        ],
        { configDir, secretStore, clock: justAfterMidnight },
        {
          when: (lines) =>
            lines.some((l) => l.event === 'health' && l.agentId === 'agent-connected' && l.health === 'connected'),
          act: async () => {
            await waitFor(
              () => appHealth('agent-connected') === 'connected',
              8000,
              'the app sees agent-connected connected',
            );
            await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 2 });
          },
          until: (lines) =>
            INCIDENTS.every((k) => cliAlerts(lines).some((a) => `${a.kind} ${(a.agentIds as string[])[0]}` === k)) &&
            lines.some(
              (l) =>
                l.event === 'health' &&
                l.agentId === 'agent-connected' &&
                l.previous === 'reconnecting' &&
                l.health === 'connected',
            ),
        },
      );
      expect(run.errors).toEqual([]);
      expect(run.code).toBe(0);

      // The CLI's words, by incident.
      const cli = new Map<string, Words & { team: unknown }>();
      for (const a of cliAlerts(run.json()))
        cli.set(`${a.kind} ${(a.agentIds as string[])[0]}`, {
          title: a.title as string,
          body: a.body as string,
          team: a.team,
        });
      // The app's: what its in-app list and its notifications show.
      const appWords = (k: string) => {
        const e = appAlerts.filter((x) => `${x.incident.kind} ${x.incident.agentId}` === k && x.notify).at(-1);
        return e ? { title: e.incident.title, body: e.incident.message } : undefined;
      };
      await waitFor(
        () =>
          INCIDENTS.every(
            (k) => appWords(k) !== undefined && annotations('/app/').has(k) && annotations('/cli/').has(k),
          ),
        8000,
        'the app told of both incidents, both Alertmanagers too',
      );

      for (const k of INCIDENTS) {
        const words = { title: cli.get(k)!.title, body: cli.get(k)!.body };
        expect(cli.get(k)!.team).toBe(TEAM);
        expect(appWords(k)).toEqual(words);
        expect(annotations('/app/').get(k)).toEqual(words);
        expect(annotations('/cli/').get(k)).toEqual(words);
      }
      // The words name the agent (and the number it had), never the team's internal id.
      expect(cli.get('reconnecting agent-connected')!.title).toBe('agent-connected (+15550100001) is reconnecting');
      expect(cli.get('needs-scan agent-unlinked')!.title).toBe('agent-unlinked needs a QR scan');
      for (const w of cli.values()) expect(`${w.title} ${w.body}`).not.toContain(teamId);

      // "Until tomorrow", chosen at 00:05: this morning at 08:00, in the app and in the CLI.
      expect(ok(await handlers['alerts.snooze']({ until: 'tomorrow' })).snoozedUntil).toBe(MORNING);
      const cliSnooze = await runCliUntil(
        ['monitor', '--team', TEAM, '--json', '--snooze', 'tomorrow'],
        { configDir, secretStore, clock: justAfterMidnight },
        {
          until: (lines) => lines.some((l) => l.event === 'started'),
        },
      );
      expect(cliSnooze.code).toBe(0);
      const started = cliSnooze.json().find((l) => l.event === 'started')!;
      expect(Date.parse(started.snoozedUntil as string)).toBe(MORNING);
    } finally {
      contract.dispose();
      await companion.close();
    }
  }, 40_000);
});
