// The console's "Sent from here" is the send log (messages.sent) over the companion and the emulator:
// the console's sends, the Messages composer's and the CLI's, newest first, each window send with its
// clientRef, a failed one with its error; started again over the same data folder, the companion
// lists the same sends.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageDTO } from '../../src-shared/contract';
import { SendLog } from '../../src-main/core/messages';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { addEmulatedTeam, startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { contractCaller } from '../helpers/contract-call';
import { waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

const AGENT = 'agent-connected';
const TO = '+15550107777';

describe('the send log as the console lists it, across a restart', () => {
  let emu: Emulator;
  let dir: string;
  const secrets = new MemorySecretStore();
  let running: TestCompanion | null = null;
  const { call, ok } = contractCaller(() => running!.handlers);
  let teamId = '';

  emulatorSuite('cc-sent-log-', (s) => ({ emu, dir } = s));
  async function start() {
    running = await startTestCompanion(dir, { secrets });
  }
  async function stop() {
    await running?.close();
    running = null;
  }
  const listed = async () =>
    (await ok<MessageDTO[]>('messages.sent', { teamId, agentId: AGENT })).map((m) => ({
      via: m.via,
      clientRef: m.clientRef ?? null,
      text: m.text,
      status: m.status,
      to: m.contact,
    }));

  beforeAll(async () => {
    await start();
    teamId = await addEmulatedTeam(ok, emu, [{ agentId: AGENT }, { agentId: 'agent-unlinked' }]);
  });

  afterAll(async () => {
    await stop();
  });

  it('lists every send of the agent from the send log, newest first, each window send with its clientRef', async () => {
    expect(await ok('messages.sent', { teamId, agentId: AGENT })).toEqual([]);
    await ok('send.message', { teamId, agentId: AGENT, to: TO, text: 'from the console', clientRef: 'send-c1' });
    await ok('messages.send', { teamId, agentId: AGENT, to: TO, text: 'from Messages', clientRef: 'send-m1' });
    // The CLI's `send` writes the same log from another process.
    await new SendLog(path.join(dir, 'data')).append({
      at: Date.now() + 1000,
      teamId,
      agentId: AGENT,
      to: TO,
      kind: 'text',
      text: 'from the command line',
      via: 'cli',
      messageId: 'wamid_cli_1',
      status: 'sent',
    });
    await running!.companion.messages.refresh();
    expect(await listed()).toEqual([
      { via: 'cli', clientRef: null, text: 'from the command line', status: 'sent', to: TO },
      { via: 'messages', clientRef: 'send-m1', text: 'from Messages', status: 'sent', to: TO },
      { via: 'console', clientRef: 'send-c1', text: 'from the console', status: 'sent', to: TO },
    ]);
    // Another agent's sends are not in this list; a failed one is listed with its error.
    const failed = await call('send.message', { teamId, agentId: 'agent-unlinked', to: TO, text: 'no link' });
    expect(failed.ok).toBe(false);
    // The record reaches the index as the app takes its own sends (a moment after the answer).
    const other = await waitFor(async () => {
      const list = await ok<MessageDTO[]>('messages.sent', { teamId, agentId: 'agent-unlinked' });
      return list.length > 0 ? list : null;
    }, 5000);
    expect(other).toMatchObject([{ text: 'no link', status: 'failed', error: { kind: 'needs-scan' } }]);
    expect((await listed()).map((r) => r.text)).not.toContain('no link');
  });

  it('started again over the same data folder, it lists the same sends', async () => {
    const before = await listed();
    await stop();
    await start();
    expect(await listed()).toEqual(before);
    expect(before).toHaveLength(3);
  });

  it('refuses an unknown team and a bad limit with a clear error', async () => {
    const unknown = await call('messages.sent', { teamId: 'nope', agentId: AGENT });
    expect(unknown.ok ? null : unknown.error.kind).toBe('not-found');
    const bad = await call('messages.sent', { teamId, agentId: AGENT, limit: 0 });
    expect(bad.ok ? null : bad.error.kind).toBe('validation');
  });
});
