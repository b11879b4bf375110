// Registrations in the app against the emulator: tunnel.status says what this install knows of
// each agent's webhook (unknown, here, elsewhere, a registration of this receiver it no longer
// reaches); webhook.history lists this install's registrations with the screen they came from;
// webhook.restore goes back to the previous URL; webhook.revealSecret hands the new secret over only
// on request; and a delivery the service posts before its PUT is answered is held, not refused.
import { describe, expect, it } from 'vitest';
import type { TunnelStatusDTO, WebhookHistoryDTO } from '../../src-shared/contract';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, state, waitFor } from '../helpers/emulator';
import type { HttpSink } from '../helpers/http-sink';

const AGENT = 'agent-connected';

describe('webhook registrations in the app', () => {
  let emu: Emulator;
  let sink: HttpSink;
  let teamId = '';
  const { ok, events } = companionSuite(
    'cc-app-registration-',
    { agents: [{ agentId: AGENT }] },
    (s) => ({ emu, sink, teamId } = s),
  );
  const agentStatus = async () => (await ok<TunnelStatusDTO>('tunnel.status')).agents.find((a) => a.agentId === AGENT)!;
  const webhookOf = async () => (await state(emu)).agents.find((a) => a.agentId === AGENT)?.webhook ?? null;

  it('nothing registered by this install: unknown, and the confirm words say another app may be receiving', async () => {
    const a = await agentStatus();
    expect(a.registration).toMatchObject({
      state: 'unknown',
      text: 'unknown: the service cannot tell us; another app may be receiving',
      last: null,
    });
    expect(a.registration.takeover).toContain('another app');
    expect(a.registration.takeover).toContain('new signing secret');
  });

  it('a delivery posted before the PUT is answered is held until the new secret is stored, then verified', async () => {
    const listenUrl = await waitFor(async () => (await ok<TunnelStatusDTO>('tunnel.status')).listenUrl, 5000);
    await control(emu, 'POST', `/agents/${AGENT}/deliver-on-register`, {
      from: '+15550100002',
      type: 'text',
      text: 'racing the reply',
    });
    await ok('webhook.register', { teamId, agentId: AGENT, publicUrl: `${listenUrl}/hooks/${AGENT}` });
    const delivered = await waitFor(() => events.find((e) => e.name === 'tunnel.delivery'), 5000);
    expect(delivered.payload).toMatchObject({ agentId: AGENT, verdict: 'verified' });
    expect(events.filter((e) => e.name === 'tunnel.refused')).toEqual([]);
    const [d] = (
      await control<Array<{ rawBody: string; attempts: Array<{ status: number | null }> }>>(
        emu,
        'GET',
        `/deliveries?agentId=${AGENT}`,
      )
    ).filter((x) => x.rawBody.includes('racing the reply'));
    expect(d!.attempts[0]!.status).toBe(200);
    expect((await agentStatus()).registration).toMatchObject({
      state: 'here',
      text: expect.stringMatching(/^registered here at \d\d:\d\d \(this receiver\)$/),
    });
  });

  it('another URL: "registered by this install to …"; history newest first; restore goes back; the secret only on request', async () => {
    await ok('webhook.register', { teamId, agentId: AGENT, publicUrl: sink.url });
    const a = await agentStatus();
    expect(a.registration.state).toBe('elsewhere');
    expect(a.registration.text).toContain(`registered by this install to ${sink.url} at `);
    expect(a.registration.text).toContain('(app: Tunnel → Register)');
    const history = await ok<WebhookHistoryDTO>('webhook.history', { teamId, agentId: AGENT });
    expect(history.entries.map((e) => [e.url.startsWith(sink.url) ? 'sink' : 'receiver', e.source, e.target])).toEqual([
      ['sink', 'app: Tunnel → Register', 'other'],
      ['receiver', 'app: Tunnel → Register', 'receiver'],
    ]);
    expect(history.previous?.target).toBe('receiver');

    const restored = await ok<{ url: string; secretHint: string; words: string }>('webhook.restore', {
      teamId,
      agentId: AGENT,
    });
    expect(restored.url).toBe(history.previous!.url);
    expect(restored.words).toContain('the app behind that URL rejects deliveries until it is given the new secret');
    expect((await webhookOf())?.url).toBe(history.previous!.url);
    expect((await agentStatus()).registration.state).toBe('here');
    expect((await ok<WebhookHistoryDTO>('webhook.history', { teamId, agentId: AGENT })).entries[0]!.source).toBe(
      'app: Tunnel → Restore previous URL',
    );

    // Nothing handed to the window so far carries the secret; the explicit request does.
    const { secret } = await ok<{ secret: string }>('webhook.revealSecret', { teamId, agentId: AGENT });
    expect(secret).toMatch(/^whsec_/);
    expect(`…${secret.slice(-4)}`).toBe(restored.secretHint);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(await ok('tunnel.status'))).not.toContain(secret);
  });
});
