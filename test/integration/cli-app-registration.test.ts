// The CLI and the app on one config and data folder. `webhook set` in a terminal while the app
// receives: the delivery the service posts before its PUT is answered is held by the app's receiver
// (the command's mark in the data folder), never refused; and the app verifies the agent's next
// deliveries with the secret the command stored, though its own copy of the config predates it.
// `agent add` in a terminal: the app shows the agent (teams.changed) and monitors it, and a change
// the app makes next keeps it. Two apps on one config (the desktop app and `serve`): a setting
// changed in one reaches the other's windows (settings.changed), and so does a preference
// (companion.json), which neither app's next change undoes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TunnelStatusDTO } from '../../src-shared/contract';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { AnyEvent } from '../../src-shared/contract';
import { companionSuite, startTestCompanion } from '../helpers/companion-suite';
import { runCli } from '../helpers/cli';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const keychain = new MemorySecretStore();

describe('webhook set from the command line while the app receives', () => {
  let emu: Emulator;
  let dir = '';
  const { ok, events } = companionSuite(
    'cc-cli-app-registration-',
    { agents: [{ agentId: AGENT }], companion: { secrets: keychain, tunnelPort: 0 } },
    (s) => ({ emu, dir } = s),
  );

  it('the early delivery is held and verified by the app; the next ones verify too', async () => {
    const listenUrl = await waitFor(async () => (await ok<TunnelStatusDTO>('tunnel.status')).listenUrl, 5000);
    await control(emu, 'POST', `/agents/${AGENT}/deliver-on-register`, {
      from: '+15550100002',
      type: 'text',
      text: 'set in a terminal',
    });
    const set = await runCli(
      [
        'webhook',
        'set',
        '--team',
        'Emulated',
        '--agent',
        AGENT,
        '--url',
        `${listenUrl}/hooks/${AGENT}`,
        '--yes',
        '--data-dir',
        join(dir, 'data'),
      ],
      { configDir: join(dir, 'config'), secretStore: keychain },
    );
    expect(set.stderr).toContain('stored in the keychain for team Emulated');
    expect(set.code).toBe(0);
    const first = await waitFor(
      () => events.find((e) => e.name === 'tunnel.delivery' || e.name === 'tunnel.refused'),
      5000,
    );
    expect(first).toMatchObject({ name: 'tunnel.delivery', payload: { agentId: AGENT, verdict: 'verified' } });
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, { from: '+15550100002', type: 'text', text: 'and after' });
    await waitFor(() => events.filter((e) => e.name === 'tunnel.delivery').length >= 2, 5000);
    expect(events.filter((e) => e.name === 'tunnel.refused')).toEqual([]);
    const attempts = (
      await control<Array<{ rawBody: string; attempts: Array<{ status: number | null }> }>>(
        emu,
        'GET',
        `/deliveries?agentId=${AGENT}`,
      )
    ).map((d) => d.attempts[0]!.status);
    expect(attempts).toEqual([200, 200]);
  });

  it('agent add in a terminal: the app follows config.json, and its next change keeps the agent', async () => {
    const before = events.filter((e) => e.name === 'teams.changed').length;
    const add = await runCli(['agent', 'add', '--team', 'Emulated', '--agent', 'agent-flaky'], {
      configDir: join(dir, 'config'),
      secretStore: keychain,
    });
    expect(add.code).toBe(0);
    const changed = await waitFor(() => events.slice(before).find((e) => e.name === 'teams.changed'), 5000);
    const agentsOf = (teams: Array<{ label: string; agentIds: string[] }>) =>
      teams.find((t) => t.label === 'Emulated')!.agentIds;
    expect(agentsOf((changed.payload as { teams: never[] }).teams)).toEqual([AGENT, 'agent-flaky']);
    expect(agentsOf(await ok('teams.list'))).toEqual([AGENT, 'agent-flaky']);
    // The monitor reads it too.
    await waitFor(
      async () =>
        (await ok<{ agents: Array<{ agentId: string }> }>('health.snapshot')).agents.some(
          (h) => h.agentId === 'agent-flaky',
        ),
      5000,
    );
    // A change made in the app afterwards is made on the file as it is now.
    await ok('settings.update', { patch: { pollIntervalSec: 45 } });
    const file = JSON.parse(await readFile(join(dir, 'config', 'config.json'), 'utf8')) as {
      teams: Array<{ label: string; agents: Array<{ agentId: string }> }>;
    };
    expect(file.teams.find((t) => t.label === 'Emulated')!.agents.map((a) => a.agentId)).toEqual([
      AGENT,
      'agent-flaky',
    ]);
  });

  /** Runs `fn` with a second app on the same config (its own data folder), closed after. */
  async function withOtherApp(
    fn: (other: Awaited<ReturnType<typeof startTestCompanion>>, seen: AnyEvent[]) => Promise<void>,
  ): Promise<void> {
    const seen: AnyEvent[] = [];
    const other = await startTestCompanion(dir, {
      secrets: keychain,
      dataDir: join(dir, 'data-other'),
      tunnelPort: 0,
      onEvent: (e) => seen.push(e),
    });
    try {
      await fn(other, seen);
    } finally {
      await other.close();
    }
  }

  it('a setting changed in one app reaches the windows of another app on the same config', () =>
    withOtherApp(async (other, seen) => {
      const from = events.length;
      await ok('settings.update', { patch: { pollIntervalSec: 50 } });
      const mine = await waitFor(() => events.slice(from).find((e) => e.name === 'settings.changed'), 5000);
      expect(mine.payload).toMatchObject({ settings: { pollIntervalSec: 50 } });
      const theirs = await waitFor(() => seen.find((e) => e.name === 'settings.changed'), 5000);
      expect(theirs.payload).toMatchObject({ settings: { pollIntervalSec: 50 } });
      expect(await other.ok('settings.get')).toMatchObject({ pollIntervalSec: 50 });
    }));

  it("a preference changed in one app (companion.json) reaches the other's windows, and neither undoes the other's", () =>
    withOtherApp(async (other, seen) => {
      const current = await ok<{ tunnel: { port: number } }>('settings.get');
      await ok('settings.update', {
        patch: {
          notifications: false,
          messageNotifications: { showText: false },
          tunnel: { port: current.tunnel.port, forwardTo: 'http://127.0.0.1:9/app' },
        },
      });
      const theirs = await waitFor(
        () =>
          seen.find(
            (e) =>
              e.name === 'settings.changed' &&
              (e.payload as { settings: { notifications: boolean } }).settings.notifications === false,
          ),
        5000,
      );
      expect(theirs.payload).toMatchObject({
        settings: {
          notifications: false,
          messageNotifications: { showText: false },
          tunnel: { forwardTo: 'http://127.0.0.1:9/app' },
        },
      });
      // The other app's next change is made on the file as it is: this one's stay.
      await other.ok('settings.update', { patch: { escalateAfterMin: 12 } });
      const file = JSON.parse(await readFile(join(dir, 'config', 'companion.json'), 'utf8')) as Record<string, unknown>;
      expect(file).toMatchObject({
        notifications: false,
        escalateAfterMin: 12,
        forwardTo: 'http://127.0.0.1:9/app',
        messageNotifications: { showText: false },
      });
      await waitFor(async () => (await ok<{ escalateAfterMin: number }>('settings.get')).escalateAfterMin === 12, 5000);
    }));
});
