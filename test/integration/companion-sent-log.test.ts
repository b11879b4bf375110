// The console's "Sent from here" is the send log (messages.sent) over the companion and the emulator:
// the console's sends, the Messages composer's and the CLI's, newest first, each window send with its
// clientRef, a failed one with its error; started again over the same data folder, the companion
// lists the same sends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageDTO } from '../../src-shared/contract';
import { createHandlers, type Handlers } from '../../src-main/app/handlers';
import { implementContract, type CompanionContract } from '../../src-main/app/contract';
import { createCompanion, type Companion } from '../../src-main/app/companion/companion';
import { SendLog } from '../../src-main/core/messages';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { contractCaller } from '../helpers/contract-call';
import { DEMO_KEY, startTestEmulator, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const TO = '+15550107777';

describe('the send log as the console lists it, across a restart', () => {
  let emu: Emulator;
  let dir: string;
  const secrets = new MemorySecretStore();
  let running: { companion: Companion; contract: CompanionContract; handlers: Handlers } | null = null;
  const { call, ok } = contractCaller(() => running!.handlers);
  let teamId = '';

  async function start() {
    const companion = await createCompanion({
      configDir: path.join(dir, 'config'),
      dataDir: path.join(dir, 'data'),
      secrets,
      poll: { intervalMs: 60_000 },
    });
    const contract = implementContract(companion);
    running = { companion, contract, handlers: createHandlers(contract.implementations) };
  }
  async function stop() {
    running?.contract.dispose();
    await running?.companion.close();
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
    emu = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-sent-log-'));
    await start();
    teamId = (
      await ok<{ teamId: string }>('teams.add', {
        label: 'Emulated',
        baseUrl: emu.baseUrl,
        apiKey: DEMO_KEY,
        agents: [{ agentId: AGENT }, { agentId: 'agent-unlinked' }],
      })
    ).teamId;
  });

  afterAll(async () => {
    await stop();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
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
