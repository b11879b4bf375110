// The demo inbox without setup: starting the demo points the demo agents' webhooks at the app's
// receiver through the one registration use case, once, recorded in the registration history as
// "demo"; a message sent to the scripted contact is answered into the thread; and a webhook URL this
// install did not set is never replaced.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageThreadDTO } from '../../src-shared/contract';
import type { CompanionContract } from '../../src-main/app/contract';
import type { Companion } from '../../src-main/app/companion/companion';
import type { Logger } from '../../src-main/core/ports';
import { startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { state, waitFor } from '../helpers/emulator';

/** The demo team's scripted contact (it answers every message). */
const DEMO_SCRIPTED_CONTACT = '15550100042';

const AGENTS = ['agent-connected', 'agent-unlinked', 'agent-flaky'];
const FOREIGN = 'https://team.example/prod-hook';

describe('the demo registers its agents at the receiver', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function start(stalePrefs = false): Promise<{
    companion: Companion;
    contract: CompanionContract;
    ok: TestCompanion['ok'];
    warnings: Array<{ msg: string; fields: Record<string, unknown> | undefined }>;
  }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cc-demo-'));
    if (stalePrefs) {
      // The public URL kept for the demo team of an earlier run (a team id that no longer exists).
      await mkdir(path.join(dir, 'config'), { recursive: true });
      const webhooks = [
        { teamId: 't_earlierdemo', agentId: 'agent-connected', publicUrl: 'http://127.0.0.1:1/hooks/x' },
      ];
      await writeFile(path.join(dir, 'config', 'companion.json'), JSON.stringify({ version: 1, webhooks }));
    }
    const warnings: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
    const logger: Logger = { info() {}, warn: (msg, fields) => void warnings.push({ msg, fields }), error() {} };
    const { companion, contract, ok, close } = await startTestCompanion(dir, { tunnelPort: 0, logger });
    cleanup.push(async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    });
    return { companion, contract, ok, warnings };
  }

  it('registers each demo agent once, recorded as "demo", and the scripted contact answers into the thread', async () => {
    const { companion, ok } = await start(true);
    const { team, baseUrl } = await ok<{ team: { teamId: string }; baseUrl: string }>('demo.start');
    const listen = companion.tunnelUrl();
    expect(listen).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const emu = { controlUrl: `${baseUrl}/_emulator` };
    const hooks = (await state(emu)).webhooks.map((w) => [w.agentId, w.url]);
    expect(hooks).toEqual(AGENTS.map((a) => [a, `${listen}/hooks/${a}`]));
    for (const a of AGENTS) {
      const { entries } = await companion.registrations.list(team.teamId, a);
      expect(entries.map((e) => [e.url, e.source, e.target])).toEqual([[`${listen}/hooks/${a}`, 'demo', 'receiver']]);
      expect(await companion.hasSigningSecret(team.teamId, a)).toBe(true);
    }
    // The URLs kept are this run's, for the demo team as it is now.
    expect(companion.settings().prefs.webhooks).toEqual(
      AGENTS.map((a) => ({ teamId: team.teamId, agentId: a, publicUrl: `${listen}/hooks/${a}` })),
    );
    // The inbox has no gap for the demo agents.
    const inbox = await ok<MessageContactsDTO>('messages.contacts', { teamId: team.teamId });
    expect(inbox.agents.map((a) => [a.agentId, a.gap])).toEqual(AGENTS.map((a) => [a, null]));

    // Started again: nothing is registered a second time.
    await ok('demo.start');
    expect((await companion.registrations.all()).entries).toHaveLength(3);

    // A message to the scripted contact gets its answer in the thread (through the receiver).
    await ok('messages.send', {
      teamId: team.teamId,
      agentId: 'agent-connected',
      to: `+${DEMO_SCRIPTED_CONTACT}`,
      text: 'Hello Robin',
    });
    const thread = await waitFor(async () => {
      const t = await ok<MessageThreadDTO>('messages.thread', {
        teamId: team.teamId,
        agentId: 'agent-connected',
        phone: `+${DEMO_SCRIPTED_CONTACT}`,
      });
      return t.messages.length === 2 ? t : null;
    }, 8000);
    expect(thread.messages.map((m) => [m.direction, m.text])).toEqual([
      ['out', 'Hello Robin'],
      ['in', 'You said: Hello Robin'],
    ]);
  });

  it('never replaces a webhook URL this install did not set: that agent is left alone and not recorded', async () => {
    const { companion, ok, warnings } = await start();
    const info = await companion.startEmulator();
    // Someone points agent-connected elsewhere before the demo team is added.
    const put = await fetch(`${info.baseUrl}/api/v1/agents/agent-connected/whatsapp/webhook`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: FOREIGN }),
    });
    expect(put.status).toBe(200);
    const { team } = await ok<{ team: { teamId: string } }>('demo.start');
    const listen = companion.tunnelUrl();
    const hooks = new Map((await state(info)).webhooks.map((w) => [w.agentId, w.url]));
    expect(hooks.get('agent-connected')).toBe(FOREIGN);
    expect(hooks.get('agent-flaky')).toBe(`${listen}/hooks/agent-flaky`);
    expect((await companion.registrations.list(team.teamId, 'agent-connected')).entries).toEqual([]);
    expect(await companion.hasSigningSecret(team.teamId, 'agent-connected')).toBe(false);
    expect(warnings).toContainEqual({
      msg: "demo: the agent's webhook points at a URL this install did not set; left as it is",
      fields: { agentId: 'agent-connected', url: FOREIGN },
    });
    // The inbox says why that agent's messages do not arrive here.
    const inbox = await ok<MessageContactsDTO>('messages.contacts', { teamId: team.teamId });
    expect(inbox.agents.find((a) => a.agentId === 'agent-connected')?.gap).toBe('not-registered');
  });
});
