// The tunnel inside the app (the companion behind Electron and `serve`): refused requests reach the
// contract (tunnel.refused request and event), the legacy-signature setting, and one writer per data
// folder: a second app on the same folder reads it, says why its receiver cannot run, and becomes the
// writer once the first one is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, RequestName, Result } from '../../src-shared/contract';
import { DEFAULT_TUNNEL_PORT } from '../../src-shared/limits';
import { decodeSigningSecrets } from '../../src-main/core/teams/signing';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { legacySignature } from '../helpers/signatures';
import type { Emulator } from '../../src-main/emulator';
import { addEmulatedTeam, startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

type App = TestCompanion & { events: AnyEvent[] };

describe('the tunnel in the app', () => {
  let emu: Emulator;
  let dir: string;
  const store = new MemorySecretStore();
  let first: App;
  let teamId = '';

  async function openApp(): Promise<App> {
    const events: AnyEvent[] = [];
    const app = await startTestCompanion(dir, { secrets: store, tunnelPort: 0, onEvent: (e) => events.push(e) });
    return { ...app, events };
  }
  const ok = <T = unknown>(app: App, name: RequestName, args: unknown = {}) => app.ok<T>(name, args);
  const closeApp = (app: App) => app.close();

  emulatorSuite('cc-app-tunnel-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    first = await openApp();
    teamId = await addEmulatedTeam(first.ok, emu, [{ agentId: 'agent-connected' }]);
  });
  afterAll(async () => {
    await first?.companion.close().catch(() => undefined);
  });

  it('a request to a path that is not a hook reaches tunnel.refused (request and event)', async () => {
    await ok(first, 'tunnel.status');
    const listenUrl = await waitFor(
      async () => (await ok<{ listenUrl: string | null }>(first, 'tunnel.status')).listenUrl,
      5000,
    );
    const res = await fetch(`${listenUrl}/webhook`, { method: 'POST', body: 'hello?' });
    expect(res.status).toBe(404);
    const ev = await waitFor(() => first.events.find((e) => e.name === 'tunnel.refused'), 5000);
    expect(ev.payload).toMatchObject({
      reason: 'not-a-hook',
      path: '/webhook',
      status: 404,
      agentId: null,
      size: 6,
      prefix: 'hello?',
      from: '127.0.0.1',
    });
    const list = await ok<Array<{ id: string; reason: string }>>(first, 'tunnel.refused', { text: '/webhook' });
    expect(list.map((r) => r.reason)).toEqual(['not-a-hook']);
    expect(await ok(first, 'tunnel.refused', { text: 'nothing like it' })).toEqual([]);
    const bad = await (first.handlers['tunnel.refused'] as (a: unknown) => Promise<Result<unknown>>)({ limit: 0 });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    const status = await ok<{ counts: { rejected: number }; receiverProblem: string | null }>(first, 'tunnel.status');
    expect(status.counts.rejected).toBe(1);
    expect(status.receiverProblem).toBeNull();
  });

  it('the hook of an agent no team watches: 404 unknown-agent, kept without an agent id (so no agent filter gains it)', async () => {
    const listenUrl = (await ok<{ listenUrl: string }>(first, 'tunnel.status')).listenUrl;
    const res = await fetch(`${listenUrl}/hooks/agent-nobody-watches`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, reason: 'unknown-agent' });
    const [kept] = await ok<Array<{ reason: string; agentId: string | null }>>(first, 'tunnel.refused', {
      text: 'agent-nobody-watches',
    });
    expect(kept).toMatchObject({ reason: 'unknown-agent', agentId: null });
    // A watched agent's hook is verified as before.
    const watched = await fetch(`${listenUrl}/hooks/agent-connected`, { method: 'POST', body: '{}' });
    expect(watched.status).toBe(401);
  });

  it('legacy-only deliveries are refused until the tunnel setting allows them', async () => {
    const listenUrl = (await ok<{ listenUrl: string }>(first, 'tunnel.status')).listenUrl;
    await ok(first, 'webhook.register', {
      teamId,
      agentId: 'agent-connected',
      publicUrl: `${listenUrl}/hooks/agent-connected`,
    });
    const secret = decodeSigningSecrets(
      Object.entries(store.snapshot()).find(([k]) => k.includes('signing-secret'))![1],
    )[0]!;
    const body = JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id: 'wamid_app_legacy', type: 'text', text: 'old style' },
    });
    const post = () =>
      fetch(`${listenUrl}/hooks/agent-connected`, {
        method: 'POST',
        headers: { 'x-service-signature': legacySignature(secret, body) },
        body,
      });
    expect(
      (await ok<{ tunnel: { allowLegacySignature: boolean } }>(first, 'settings.get')).tunnel.allowLegacySignature,
    ).toBe(false);
    expect((await post()).status).toBe(401);
    expect((await ok<Array<{ reason: string }>>(first, 'tunnel.refused', { limit: 1 }))[0]!.reason).toBe('legacy-only');
    await ok(first, 'settings.update', {
      patch: { tunnel: { port: DEFAULT_TUNNEL_PORT, forwardTo: null, allowLegacySignature: true } },
    });
    expect((await post()).status).toBe(200);
    const listed = await ok<Array<{ verdict: string; messageId: string }>>(first, 'tunnel.deliveries', {
      agentId: 'agent-connected',
    });
    expect(listed.find((d) => d.messageId === 'wamid_app_legacy')?.verdict).toBe('verified-legacy-only');
    // A patch without the field leaves it as it is.
    await ok(first, 'settings.update', { patch: { tunnel: { port: DEFAULT_TUNNEL_PORT, forwardTo: null } } });
    expect(
      (await ok<{ tunnel: { allowLegacySignature: boolean } }>(first, 'settings.get')).tunnel.allowLegacySignature,
    ).toBe(true);
  });

  it('a second app on the same data folder reads it, says why it cannot receive, and takes over once the first is gone', async () => {
    const second = await openApp();
    try {
      const before = await ok<{ running: boolean; receiverProblem: string | null }>(second, 'tunnel.status');
      expect(before.running).toBe(false);
      await waitFor(
        async () => (await ok<{ receiverProblem: string | null }>(second, 'tunnel.status')).receiverProblem,
        5000,
      );
      expect((await ok<{ receiverProblem: string }>(second, 'tunnel.status')).receiverProblem).toContain(
        `in use by another writer (process ${process.pid}`,
      );
      // It still reads what the first one stored.
      expect(
        (await ok<Array<{ messageId: string }>>(second, 'tunnel.deliveries', {})).map((d) => d.messageId),
      ).toContain('wamid_app_legacy');
      await closeApp(first);
      const after = await waitFor(async () => {
        const s = await ok<{ running: boolean; receiverProblem: string | null }>(second, 'tunnel.status');
        return s.running ? s : null;
      }, 5000);
      expect(after.receiverProblem).toBeNull();
    } finally {
      await closeApp(second);
    }
  });
});
