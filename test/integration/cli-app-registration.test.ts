// The CLI and the app on one config and data folder: `webhook set` in a terminal while the app
// receives. The delivery the service posts before its PUT is answered is held by the app's receiver
// (the command's mark in the data folder), never refused; and the app verifies the agent's next
// deliveries with the secret the command stored, though its own copy of the config predates it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TunnelStatusDTO } from '../../src-shared/contract';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { companionSuite } from '../helpers/companion-suite';
import { runCli } from '../helpers/cli';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const keychain = new MemorySecretStore();

describe('webhook set from the command line while the app receives', () => {
  let emu: Emulator;
  let dir = '';
  const { ok, events } = companionSuite(
    'cc-cli-app-registration-',
    { agents: [{ agentId: AGENT }], companion: { secrets: keychain } },
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
});
