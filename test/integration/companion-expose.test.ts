// The receiver's public exposure through the contract, over the companion and the emulator: the
// fake tunnel program comes up, the chosen agent is registered at <public URL>/hooks/<agent>, an
// emulator delivery travels emulator → public URL → receiver and is verified; tunnel.status shows
// each agent's local and public hook URL; stop keeps the URL (the service still points there).
// ngrok over a stubbed module; its authtoken stored in the keychain and shown only as a hint.
import { describe, expect, it } from 'vitest';
import type { DeliverySummaryDTO, ExposureDTO, TunnelStatusDTO } from '../../src-shared/contract';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, DEMO_KEY, state, waitFor } from '../helpers/emulator';
import { fakeTunnelCommand, NO_NETWORK_ADDRESS } from '../helpers/fake-tunnel';
import type { NgrokLoader } from '../../src-main/core/expose/ngrok';

type NgrokModule = Awaited<ReturnType<NgrokLoader>>;

/** The keychain account the ngrok authtoken is kept under. */
const NGROK_AUTHTOKEN_ACCOUNT = 'ngrok:authtoken';

const ci = !!process.env.CI && process.env.CI !== 'false';
const TOKEN = '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH';
const AGENT = 'agent-connected';

describe('tunnel.expose over the companion and the emulator', () => {
  let emu: Emulator;
  const secrets = new MemorySecretStore();
  const ngrokCalls: unknown[] = [];
  let teamId = '';
  const ngrok: NgrokModule = {
    forward: async (cfg) => {
      ngrokCalls.push(cfg);
      return { url: () => 'https://stub-1.ngrok-free.app', close: async () => undefined };
    },
  };

  const { call, ok, events } = companionSuite(
    'cc-expose-',
    {
      agents: [{ agentId: AGENT }],
      companion: {
        secrets,
        poll: undefined,
        exposure: { loadNgrok: async () => ngrok, timeoutMs: 10_000 },
        tunnelPort: 0,
      },
    },
    (s) => ({ emu, teamId } = s),
  );

  it("tunnel.status starts off, with each agent's full local hook URL", async () => {
    await ok('tunnel.status');
    const st = await waitFor(async () => {
      const s = await ok<TunnelStatusDTO>('tunnel.status');
      return s.running ? s : null;
    });
    expect(st.exposure).toMatchObject({
      state: 'off',
      url: null,
      kind: null,
      registrations: [],
      ngrokAuthtoken: { stored: false, hint: null },
    });
    expect(st.agents[0]).toMatchObject({
      agentId: AGENT,
      receiverUrl: `${st.listenUrl}/hooks/${AGENT}`,
      exposedUrl: null,
    });
  });

  it.skipIf(!ci && NO_NETWORK_ADDRESS !== null)(
    'exposes with a command, registers the agent, and carries an emulator delivery through to a verified record',
    async () => {
      const x = await ok<ExposureDTO>('tunnel.expose', {
        kind: 'command',
        command: fakeTunnelCommand(),
        register: [{ teamId: 'Emulated', agentId: AGENT }],
      });
      expect(x).toMatchObject({ state: 'up', kind: 'command', error: null });
      const hook = `${x.url}/hooks/${AGENT}`;
      expect(x.registrations).toEqual([{ teamId, agentId: AGENT, url: hook, state: 'registered', error: null }]);
      // The events told the story as it happened, and never the command line.
      const states = events.filter((e) => e.name === 'tunnel.exposure').map((e) => (e.payload as ExposureDTO).state);
      expect(states).toEqual(expect.arrayContaining(['starting', 'up']));
      expect(JSON.stringify(events)).not.toContain('fake-tunnel-bin');

      const st = await ok<TunnelStatusDTO>('tunnel.status');
      expect(st.agents[0]).toMatchObject({ exposedUrl: hook, publicUrl: hook, hasSecret: true });
      expect(JSON.stringify(await state(emu))).toContain(hook);

      const before = events.length;
      await control(emu, 'POST', `/agents/${AGENT}/inbound`, {
        from: '+15550100007',
        type: 'text',
        text: 'via the public URL',
      });
      const d = await waitFor(
        () => events.slice(before).find((e) => e.name === 'tunnel.delivery')?.payload as DeliverySummaryDTO | undefined,
        10_000,
        'the delivery',
      );
      expect(d).toMatchObject({ agentId: AGENT, teamId, verdict: 'verified', from: '15550100007' });

      const stopped = await ok<ExposureDTO>('tunnel.unexpose');
      expect(stopped).toMatchObject({ state: 'stopped', url: x.url });
      const after = await ok<TunnelStatusDTO>('tunnel.status');
      // No public hook any more, but the service still points at it.
      expect(after.agents[0]).toMatchObject({ exposedUrl: null, publicUrl: hook });
    },
    30_000,
  );

  it('a failing command: failed with why and what to do; the local receiver keeps answering', async () => {
    const x = await ok<ExposureDTO>('tunnel.expose', {
      kind: 'command',
      command: `'${process.execPath}' -e "process.exit(9)" {port}`,
      register: [{ teamId, agentId: AGENT }],
    });
    expect(x.state).toBe('failed');
    expect(x.error).toMatchObject({ code: 'exited' });
    expect(x.error!.message).toContain('exited with code 9');
    expect(x.error!.hint).toMatch(/local receiver keeps working/);
    expect(x.registrations).toEqual([]);
    const st = await ok<TunnelStatusDTO>('tunnel.status');
    const res = await fetch(st.agents[0]!.receiverUrl!, { method: 'POST', body: '{}' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('ngrok without an authtoken fails saying how to store one; with one it comes up (stubbed module)', async () => {
    const none = await ok<ExposureDTO>('tunnel.expose', { kind: 'ngrok' });
    expect(none).toMatchObject({ state: 'failed', kind: 'ngrok', error: { code: 'no-authtoken' } });

    expect(await ok('tunnel.setNgrokAuthtoken', { authtoken: TOKEN })).toEqual({ hint: '…EFGH' });
    expect(await secrets.get(NGROK_AUTHTOKEN_ACCOUNT)).toBe(TOKEN);
    const up = await ok<ExposureDTO>('tunnel.expose', { kind: 'ngrok', domain: 'me.ngrok.app' });
    expect(up).toMatchObject({
      state: 'up',
      kind: 'ngrok',
      url: 'https://stub-1.ngrok-free.app',
      ngrokAuthtoken: { stored: true, hint: '…EFGH' },
    });
    expect(ngrokCalls.at(-1)).toMatchObject({ authtoken: TOKEN, domain: 'me.ngrok.app' });
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(JSON.stringify(await ok('tunnel.status'))).not.toContain(TOKEN);
    await ok('tunnel.unexpose');
  });

  it("the tunnel program sees no variable holding a team's key or the ngrok authtoken, whatever its name", async () => {
    const names = ['CC_TEST_KEY_COPY', 'CC_TEST_TOKEN_COPY', 'CC_TEST_HARMLESS'];
    Object.assign(process.env, { CC_TEST_KEY_COPY: DEMO_KEY, CC_TEST_TOKEN_COPY: TOKEN, CC_TEST_HARMLESS: 'stays' });
    try {
      const command = `'${process.execPath}' -e "console.error('saw=' + ${JSON.stringify(names).replace(/"/g, "'")}.filter((n) => process.env[n]).join(',')); process.exit(9)" {port}`;
      const x = await ok<ExposureDTO>('tunnel.expose', { kind: 'command', command });
      expect(x.state).toBe('failed');
      expect(x.error!.message).toContain('saw=CC_TEST_HARMLESS');
    } finally {
      for (const n of names) delete process.env[n];
    }
  });

  it.each([
    [{ kind: 'command', command: 'cloudflared tunnel' }, 'command'],
    [{ kind: 'command', command: '' }, 'command'],
    [{ kind: 'localtunnel' }, 'kind'],
    [{ kind: 'ngrok', register: [{ teamId: 'nope', agentId: AGENT }] }, null],
  ])('bad args %j are refused before anything runs', async (args, field) => {
    const r = await call('tunnel.expose', args);
    expect(r.ok).toBe(false);
    if (!r.ok && field) expect(r.error).toMatchObject({ kind: 'validation', field });
    if (!r.ok && !field) expect(r.error.kind).toBe('not-found');
  });

  it('a bad authtoken is refused without echoing it', async () => {
    const r = await call('tunnel.setNgrokAuthtoken', { authtoken: 'short secret' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('validation');
      expect(r.error.message).not.toContain('short secret');
    }
  });
});
