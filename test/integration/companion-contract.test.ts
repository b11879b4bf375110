// The contract additions end to end over the companion and the emulator: settings (installId,
// theme, alert rules applied to the monitor, the alert webhook posting alerts), health.history,
// per-agent tunnel status, forward response bodies, tunnel.media, chat timing numbers, and the chat
// conversation list (search, delete).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TUNNEL_PORT } from '../../src-shared/limits';
import { createHandlers } from '../../src-main/app/handlers';
import { implementContract } from '../../src-main/app/contract';
import type { Companion } from '../../src-main/app/companion/companion';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, DEMO_KEY, state, waitFor } from '../helpers/emulator';

const AGENTS = ['agent-connected', 'agent-unlinked', 'agent-flaky'];

interface Hit {
  path: string;
  body: string;
}

/** A loopback server that records requests and answers with `reply`. */
async function recorder(
  reply: (req: IncomingMessage) => { status: number; body: string },
): Promise<{ server: Server; url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const r = reply(req);
      res.writeHead(r.status, { 'content-type': 'text/plain' }).end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('contract additions over the companion and the emulator', () => {
  let emu: Emulator;
  let dir: string;
  let mediaTmp: string;
  let companion: Companion;
  let alertHook: Awaited<ReturnType<typeof recorder>>;
  let localApp: Awaited<ReturnType<typeof recorder>>;
  let teamId = '';

  const { call, ok, events } = companionSuite(
    'cc-contract-',
    {
      agents: AGENTS.map((agentId) => ({ agentId })),
      companion: { poll: { intervalMs: 300, fastIntervalMs: 150 }, tunnelPort: 0 },
    },
    (s) => {
      ({ emu, dir, companion, teamId } = s);
      mediaTmp = path.join(dir, 'data', 'messages', 'media');
    },
  );

  beforeAll(async () => {
    alertHook = await recorder(() => ({ status: 204, body: '' }));
    localApp = await recorder(() => ({ status: 500, body: '{"error":"db down"}' }));
  });

  afterAll(async () => {
    await new Promise((r) => alertHook?.server.close(r));
    await new Promise((r) => localApp?.server.close(r));
  });

  it('agents.watchClosely: kept in the config per agent, listed, and the monitor polls that agent at the fast interval', async () => {
    const before = await ok<Array<{ agentId: string; watchClosely: boolean }>>('agents.list', { teamId });
    expect(before.map((a) => [a.agentId, a.watchClosely])).toEqual(AGENTS.map((a) => [a, false]));
    const polls: Array<{ agentId: string; nextPollInMs: number }> = [];
    const off = companion.events.on('poll', (r) => polls.push(r));
    try {
      const on = await ok<{ agentId: string; watchClosely: boolean }>('agents.watchClosely', {
        teamId,
        agentId: 'agent-connected',
        on: true,
      });
      expect(on).toMatchObject({ agentId: 'agent-connected', watchClosely: true });
      const file = JSON.parse(await readFile(path.join(dir, 'config', 'config.json'), 'utf8')) as {
        teams: Array<{ agents: Array<{ agentId: string; watchClosely: boolean }> }>;
      };
      expect(file.teams[0]!.agents.map((a) => [a.agentId, a.watchClosely])).toEqual(
        AGENTS.map((a) => [a, a === 'agent-connected']),
      );
      // Connected and watched closely: the next poll is the fast one (150 ms here), again and again.
      await waitFor(
        () => polls.filter((p) => p.agentId === 'agent-connected' && p.nextPollInMs <= 150).length >= 3,
        8000,
      );
      expect(
        (await ok<Array<{ agentId: string; watchClosely: boolean }>>('agents.list', { teamId })).find(
          (a) => a.agentId === 'agent-connected',
        )?.watchClosely,
      ).toBe(true);
      await ok('agents.watchClosely', { teamId, agentId: 'agent-connected', on: false });
      expect(await call('agents.watchClosely', { teamId, agentId: 'no-such-agent', on: true })).toMatchObject({
        ok: false,
      });
    } finally {
      off();
    }
  });

  it('settings: installId is the chat default user id and read-only; theme and alert rules are saved and the monitor uses the rules', async () => {
    const s = await ok<{
      installId: string;
      theme: string;
      alertRules: Record<string, number>;
      alertWebhookUrl: string | null;
    }>('settings.get');
    expect(s.installId).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(s.installId).toBe(companion.chat.defaultUserId);
    expect(s).toMatchObject({
      theme: 'system',
      alertWebhookUrl: null,
      alertRules: {
        reconnectGraceSec: 0,
        repeatDropGraceSec: 60,
        realertMinutes: 15,
        flapCount: 3,
        flapWindowMinutes: 10,
      },
      fastPollIntervalSec: 2,
    });
    // The rules shown are the rules used: the monitor's grace for a repeat drop is the setting's.
    expect(companion.monitor().status().rules).toMatchObject({ reconnectGraceSec: 0, repeatDropGraceSec: 60 });

    const rules = {
      reconnectGraceSec: 0,
      repeatDropGraceSec: 20,
      realertMinutes: 30,
      flapCount: 5,
      flapWindowMinutes: 20,
    };
    const after = await ok<typeof s>('settings.update', { patch: { theme: 'dark', alertRules: rules } });
    expect(after).toMatchObject({ installId: s.installId, theme: 'dark', alertRules: rules });
    expect(companion.monitor().status().rules).toMatchObject(rules);
    const file = JSON.parse(await readFile(path.join(dir, 'config', 'config.json'), 'utf8')) as {
      settings: { theme: string; alertRules: object };
    };
    expect(file.settings.theme).toBe('dark');
    expect(file.settings.alertRules).toMatchObject(rules);

    const refused = await call('settings.update', { patch: { installId: 'somebody-elses-id' } });
    expect(await call('settings.update', { patch: { fastPollIntervalSec: 1 } })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(await call('settings.update', { patch: { alertWebhookUrl: 'javascript:alert(1)' } })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'patch.alertWebhookUrl' },
    });
    expect((await ok<{ installId: string; alertWebhookUrl: null }>('settings.get')).installId).toBe(s.installId);
  });

  it('the alert webhook receives the alert of a dropped link; health.history lists the changes newest first', async () => {
    const hookUrl = `${alertHook.url}/alerts/T0KEN-abcdefghijklmnop`;
    const s = await ok<{ alertWebhookUrl: string }>('settings.update', { patch: { alertWebhookUrl: hookUrl } });
    expect(s.alertWebhookUrl).toBe(hookUrl);
    await waitFor(async () => {
      const h = await ok<{ agents: Array<{ agentId: string; health: string }> }>('health.snapshot');
      return h.agents.find((a) => a.agentId === 'agent-connected')?.health === 'connected';
    }, 8000);

    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 1 });
    const hit = await waitFor(() => alertHook.hits.find((h) => h.body.includes('agent-connected')), 8000);
    expect(hit.path).toBe('/alerts/T0KEN-abcdefghijklmnop');
    const posted = JSON.parse(hit.body) as { text: string; alert: { agentId?: string } };
    expect(posted.text).toMatch(/agent-connected/);
    expect(hit.body).not.toContain(DEMO_KEY);

    const history = await waitFor(async () => {
      const list = await ok<Array<{ at: number; health: string; previous: string; state?: string }>>('health.history', {
        teamId,
        agentId: 'agent-connected',
      });
      return list.some((e) => e.health === 'reconnecting') && list[0]?.health === 'connected' ? list : null;
    }, 8000);
    const drop = history.find((e) => e.health === 'reconnecting')!;
    expect(drop.previous).toBe('connected');
    expect(history.map((e) => e.at)).toEqual([...history.map((e) => e.at)].sort((a, b) => b - a));
    expect(await call('health.history', { teamId, agentId: 'no-such-agent' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found' },
    });

    // Diagnostics show the webhook without its token.
    const diag = await ok<{ content: string }>('diagnostics.export');
    expect(diag.content).not.toContain('T0KEN-abcdefghijklmnop');
    await ok('settings.update', { patch: { alertWebhookUrl: null } });
  });

  it('metricsPort serves Prometheus metrics on loopback; alertmanagerUrl posts raised incidents to Alertmanager (settings apply in place)', async () => {
    const s = await ok<{ metricsPort: number | null; alertmanagerUrl: string | null }>('settings.update', {
      patch: { metricsPort: 0, alertmanagerUrl: `${alertHook.url}/am` },
    });
    expect(s).toMatchObject({ metricsPort: 0, alertmanagerUrl: `${alertHook.url}/am` });
    const url = await companion.metricsUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const text = await waitFor(async () => {
      const t = await (await fetch(url!)).text();
      return t.includes('agent="agent-unlinked",health="needs-scan"} 1') ? t : null;
    }, 8000);
    expect(text).toContain(
      'channel_companion_agent_health{team="Emulated",agent="agent-unlinked",health="needs-scan"} 1',
    );
    // The unlinked agent's incident, raised at its first poll, goes to Alertmanager at once.
    const hit = await waitFor(
      () => alertHook.hits.find((h) => h.path === '/am/api/v2/alerts' && h.body.includes('agent-unlinked')),
      8000,
    );
    const posted = JSON.parse(hit.body) as Array<{ labels: Record<string, string> }>;
    expect(posted.find((a) => a.labels['agent'] === 'agent-unlinked')!.labels).toMatchObject({
      alertname: 'ChannelNeedsScan',
      team: 'Emulated',
      severity: 'critical',
    });
    expect(hit.body).not.toContain(DEMO_KEY);
    await ok('settings.update', { patch: { metricsPort: null, alertmanagerUrl: null } });
    expect(await companion.metricsUrl()).toBeNull();
    await expect(fetch(url!)).rejects.toThrow();
  });

  it('tunnel: per-agent local app state and pending, the local app answer on each attempt, and media through tunnel.media', async () => {
    await call('tunnel.status');
    const st0 = await waitFor(async () => {
      const s = await ok<{ running: boolean; listenUrl: string | null }>('tunnel.status');
      return s.running ? s : null;
    });
    await ok('webhook.register', {
      teamId,
      agentId: 'agent-connected',
      publicUrl: `${st0.listenUrl}/hooks/agent-connected`,
    });
    await ok('settings.update', {
      patch: { tunnel: { port: DEFAULT_TUNNEL_PORT, forwardTo: `${localApp.url}/hook` } },
    });

    const mark = events.length;
    await control(emu, 'POST', '/agents/agent-connected/inbound', {
      from: '15550100002',
      type: 'text',
      text: 'hello app',
    });
    const failed = await waitFor(
      () => events.slice(mark).find((e) => e.name === 'tunnel.forward' && e.payload.status === 500),
      8000,
    );
    expect(failed.name === 'tunnel.forward' && failed.payload.responseBody).toBe('{"error":"db down"}');

    const st = await waitFor(async () => {
      const s = await ok<{ agents: Array<{ agentId: string; localAppDownSince: number | null; pending: number }> }>(
        'tunnel.status',
      );
      const a = s.agents.find((x) => x.agentId === 'agent-connected');
      return a && a.localAppDownSince !== null && a.pending >= 1 ? a : null;
    }, 8000);
    expect(st.localAppDownSince).toBeLessThanOrEqual(Date.now());
    const textDelivery = await ok<Array<{ id: string; messageType: string }>>('tunnel.deliveries', {
      agentId: 'agent-connected',
      text: 'hello app',
    });
    const detail = await ok<{ forwards: Array<{ status: number | null; responseBody?: string | null }> }>(
      'tunnel.delivery',
      { id: textDelivery[0]!.id },
    );
    expect(detail.forwards.some((f) => f.status === 500 && f.responseBody === '{"error":"db down"}')).toBe(true);
    // The delivery waits in the agent's forward queue: its next try is known, and Retry now is one call.
    const id = textDelivery[0]!.id;
    const waiting = await waitFor(async () => {
      const d = await ok<{ forwardState: string; nextTryAt: number | null }>('tunnel.delivery', { id });
      return d.nextTryAt !== null ? d : null;
    }, 8000);
    expect(waiting.forwardState).toBe('pending');
    expect(waiting.nextTryAt).toBeGreaterThan(st.localAppDownSince!);
    expect(await ok<{ pending: number }>('tunnel.retryNow', { agentId: 'agent-connected' })).toEqual({
      pending: expect.any(Number),
    });
    // A replay says it is one; the delivery's own forward state stays the queue's.
    const replayed = await ok<{ replay?: string }>('tunnel.replay', { id, mode: 'as-received' });
    expect(replayed.replay).toBe('as-received');
    expect((await ok<{ forwardState: string }>('tunnel.delivery', { id })).forwardState).toBe('pending');
    // Copy as curl: the forward address and every header the delivery came with, the service's delivery id included.
    const curl = await ok<{ content: string }>('tunnel.export', { id, format: 'curl' });
    expect(curl.content).toContain(`'${localApp.url}/hook'`);
    expect(curl.content).toMatch(/-H 'x-delivery-id: [^']+'/);
    expect(await call('tunnel.media', { id: textDelivery[0]!.id })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request', code: 'NO_MEDIA' },
    });

    // An image: downloaded by the main process with the team's client; the key never left for the blob's origin.
    await control(emu, 'POST', '/agents/agent-connected/inbound', {
      from: '15550100002',
      type: 'image',
      caption: 'a photo',
    });
    const image = await waitFor(
      async () =>
        (
          await ok<Array<{ id: string; messageType: string }>>('tunnel.deliveries', { agentId: 'agent-connected' })
        ).find((d) => d.messageType === 'image'),
      8000,
    );
    const media = await ok<{ filename: string; mimeType: string; bytes: number; dataBase64: string }>('tunnel.media', {
      id: image.id,
    });
    expect(media.mimeType).toBe('image/png');
    expect(media.filename).toMatch(/\.png$/);
    const bytes = Buffer.from(media.dataBase64, 'base64');
    expect(bytes.length).toBe(media.bytes);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const emuState = await state(emu);
    expect(emuState.mediaRequests).toBeGreaterThanOrEqual(1);
    expect(emuState.mediaRequestsWithAuthorization).toBe(0);
    // Kept in the data folder's media cache: the bytes and their description, no temp folder left.
    expect((await readdir(mediaTmp)).map((n) => path.extname(n)).sort()).toEqual(['.bin', '.json']);

    // Over the cap (fetched again, the cache emptied): a clear error, and the temp file is gone too.
    await rm(mediaTmp, { recursive: true, force: true });
    const capped = implementContract(companion, { media: { maxBytes: 10 } });
    try {
      const r = await createHandlers(capped.implementations)['tunnel.media']({ id: image.id });
      expect(r).toMatchObject({ ok: false, error: { kind: 'invalid-request', code: 'MEDIA_TOO_LARGE' } });
    } finally {
      capped.dispose();
    }
    expect(await readdir(mediaTmp)).toEqual([]);
    expect(await call('tunnel.media', { id: 'no-such-delivery' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found' },
    });
    await ok('settings.update', { patch: { tunnel: { port: DEFAULT_TUNNEL_PORT, forwardTo: null } } });
  });

  it('chat.done carries the first-token time and speed the core measured', async () => {
    const installId = (await ok<{ installId: string }>('settings.get')).installId;
    const { turnId } = await ok<{ turnId: string }>('chat.startTurn', {
      teamId,
      agentId: 'agent-connected',
      userId: installId,
      message: 'hello there',
    });
    const done = await waitFor(
      () => events.find((e) => (e.name === 'chat.done' || e.name === 'chat.error') && e.payload.turnId === turnId),
      10_000,
    );
    expect(done.name).toBe('chat.done');
    if (done.name !== 'chat.done') return;
    expect(typeof done.payload.result.firstTokenMs).toBe('number');
    expect(done.payload.result.firstTokenMs).toBeGreaterThanOrEqual(0);
    expect(done.payload.result.tokensPerSec === null || typeof done.payload.result.tokensPerSec === 'number').toBe(
      true,
    );
    // The transcript of the person's own conversation (the install id) has the same numbers.
    const transcript = await ok<Array<{ role: string; result?: { firstTokenMs?: number | null } }>>('chat.transcript', {
      teamId,
      agentId: 'agent-connected',
      userId: installId,
    });
    expect(transcript.find((m) => m.role === 'agent')?.result?.firstTokenMs).toBe(done.payload.result.firstTokenMs);
  });

  it("chat.conversations lists the agent's conversations (searchable); chat.deleteConversation removes one", async () => {
    const turn = async (userId: string, message: string) => {
      const { turnId } = await ok<{ turnId: string }>('chat.startTurn', {
        teamId,
        agentId: 'agent-flaky',
        userId,
        message,
      });
      await waitFor(
        () => events.find((e) => (e.name === 'chat.done' || e.name === 'chat.error') && e.payload.turnId === turnId),
        10_000,
      );
    };
    await turn('conv-a', 'Where is my parcel?');
    await turn('conv-b', 'Cancel my subscription');
    const list = await ok<Array<{ userId: string; title: string; turns: number; match: string | null }>>(
      'chat.conversations',
      { teamId, agentId: 'agent-flaky' },
    );
    expect(list.map((c) => c.userId)).toEqual(['conv-b', 'conv-a']);
    expect(list[1]).toMatchObject({ title: 'Where is my parcel?', turns: 1, match: null });
    expect(await ok('chat.conversations', { teamId, agentId: 'agent-flaky', text: 'PARCEL' })).toMatchObject([
      { userId: 'conv-a', match: 'Where is my parcel?' },
    ]);
    // Bad input and an unknown team are refused with a reason.
    expect(await call('chat.conversations', { teamId, agentId: 'agent-flaky', text: 7 })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(await call('chat.conversations', { teamId: 'no-such-team', agentId: 'agent-flaky' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found' },
    });
    expect(await call('chat.deleteConversation', { teamId, agentId: 'agent-flaky' })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });

    expect(await ok('chat.deleteConversation', { teamId, agentId: 'agent-flaky', userId: 'conv-a' })).toEqual({
      deleted: true,
    });
    expect(await ok('chat.transcript', { teamId, agentId: 'agent-flaky', userId: 'conv-a' })).toEqual([]);
    expect(
      (await ok<Array<{ userId: string }>>('chat.conversations', { teamId, agentId: 'agent-flaky' })).map(
        (c) => c.userId,
      ),
    ).toEqual(['conv-b']);
    expect(await ok('chat.deleteConversation', { teamId, agentId: 'agent-flaky', userId: 'conv-a' })).toEqual({
      deleted: false,
    });
  });

  it('chat.frames: the stream frames of a turn as received (event, id, data), not its tokens', async () => {
    const { turnId } = await ok<{ turnId: string }>('chat.startTurn', {
      teamId,
      agentId: 'agent-connected',
      userId: 'frames-user',
      message: 'two words',
    });
    await waitFor(() => events.find((e) => e.name === 'chat.done' && e.payload.turnId === turnId), 10_000);
    const got = await ok<{
      frames: Array<{ event: string | null; data: string }>;
      omitted: number;
      live: boolean;
      known: boolean;
    }>('chat.frames', { turnId });
    expect(got).toMatchObject({ omitted: 0, live: false, known: true });
    expect(got.frames.map((f) => f.event)).toEqual(['token', 'token', 'token', 'token', 'done']);
    expect(got.frames[0]!.data).toBe('{"token":"You "}');
    expect(JSON.parse(got.frames.at(-1)!.data)).toMatchObject({ reply: 'You said: two words' });
    expect(await ok('chat.frames', { turnId: 'no-such-turn' })).toEqual({
      frames: [],
      omitted: 0,
      live: false,
      known: false,
    });
  });

  it('a reply that could not be read ends the turn with chat.error carrying the frames; the transcript keeps it', async () => {
    await control(emu, 'POST', '/agents/agent-connected/chat-script', { reply: '' });
    try {
      const { turnId } = await ok<{ turnId: string }>('chat.startTurn', {
        teamId,
        agentId: 'agent-connected',
        userId: 'unreadable-user',
        message: 'hello',
      });
      const ended = await waitFor(
        () => events.find((e) => (e.name === 'chat.done' || e.name === 'chat.error') && e.payload.turnId === turnId),
        10_000,
      );
      expect(ended.name).toBe('chat.error');
      if (ended.name !== 'chat.error') return;
      expect(ended.payload.error).toMatchObject({
        code: 'UNREADABLE_REPLY',
        status: 200,
        raw: { status: 200, contentType: 'text/event-stream; charset=utf-8' },
      });
      expect(ended.payload.error.raw?.frames?.map((f) => f.event)).toEqual(['done']);
      expect(JSON.stringify(ended.payload)).not.toContain(DEMO_KEY);
      const transcript = await ok<Array<{ role: string; status?: string; error?: { code: string; raw?: unknown } }>>(
        'chat.transcript',
        { teamId, agentId: 'agent-connected', userId: 'unreadable-user' },
      );
      expect(transcript.find((m) => m.role === 'agent')).toMatchObject({
        status: 'error',
        error: { code: 'UNREADABLE_REPLY', raw: { status: 200 } },
      });
    } finally {
      await control(emu, 'POST', '/agents/agent-connected/chat-script', {});
    }
  });

  it('teams.add refuses a plain http:// address on another machine unless allowInsecureHttp, naming baseUrl', async () => {
    const r = await call('teams.add', {
      label: 'Remote lab',
      baseUrl: 'http://lab.example:8787',
      apiKey: DEMO_KEY,
      agents: [{ agentId: 'agent-connected' }],
    });
    expect(r).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'baseUrl', message: expect.stringMatching(/unencrypted/) },
    });
    const teams = await ok<Array<{ label: string; allowInsecureHttp?: boolean }>>('teams.list');
    expect(teams.map((t) => t.label)).not.toContain('Remote lab');
    expect(teams.find((t) => t.label === 'Emulated')?.allowInsecureHttp).toBe(false);
  });
});
