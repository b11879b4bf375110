// The handler layer alone (validate + route + Result envelope), over a fake implementation: what
// each request does over the companion is tested through the real composition
// (test/integration/companion*.test.ts) and, for the service calls, in service.test.ts.
import { describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src-main/app/handlers';
import { TeamStoreError } from '../../../src-main/core/teams';
import {
  ChannelNotConfigured,
  ChannelReconnecting,
  InvalidRequest,
  NotFound,
  RateLimited,
} from '../../../src-main/core/api/errors';
import { KeychainLocked } from '../../../src-main/core/secrets/types';
import { ReplayError, TunnelError } from '../../../src-main/core/tunnel';
import { REQUEST_NAMES } from '../../../src-shared/contract';
import { fakeContract, NOW } from './fake-contract';

const KEY = 'sk_live_abcdef1234567890_9f2c';
const TEAM = { label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [{ agentId: 'a1' }] };

describe('createHandlers', () => {
  it('has one handler per contract request name', () => {
    const h = createHandlers(fakeContract().impl);
    expect(Object.keys(h).sort()).toEqual([...REQUEST_NAMES].sort());
  });

  it('passes the parsed args to the implementation and answers its value in an ok envelope', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const r = await h['teams.add']({ ...TEAM, label: '  Ops  ' });
    expect(r).toEqual({
      ok: true,
      value: {
        teamId: 't1',
        label: 'Ops',
        baseUrl: TEAM.baseUrl,
        keyHint: '…9f2c',
        keyRejected: false,
        agentIds: ['a1'],
      },
    });
    expect(impl['teams.add']).toHaveBeenCalledWith({ ...TEAM, label: 'Ops' });
  });

  it('rejects bad args with a validation ErrorDTO naming the field, and runs nothing', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const r = await h['teams.add']({ label: 'Ops', baseUrl: 'file:///etc/passwd', apiKey: KEY, agents: [] });
    expect(r).toEqual({ ok: false, error: expect.objectContaining({ kind: 'validation', field: 'baseUrl' }) });
    expect(impl['teams.add']).not.toHaveBeenCalled();

    const extra = await h['teams.remove']({ teamId: 't1', evil: true });
    expect(extra.ok).toBe(false);
    expect(impl['teams.remove']).not.toHaveBeenCalled();

    const notObject = await h['teams.remove']('t1');
    expect(notObject).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });

  it('words a refused field by the name its form shows and says the rule plainly, keeping the field path', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const refused = async (name: 'teams.add' | 'agents.add' | 'send.message' | 'tunnel.simulate', args: object) => {
      const r = await h[name](args as never);
      if (r.ok) throw new Error(`${name} was accepted`);
      return { field: r.error.field, message: r.error.message };
    };
    // One label limit, whatever the length past it: a team's label is its name.
    for (const n of [100, 150]) {
      expect(await refused('teams.add', { ...TEAM, label: 'x'.repeat(n) })).toEqual({
        field: 'label',
        message: 'Team name must be at most 64 characters.',
      });
    }
    expect(await refused('teams.add', { ...TEAM, agents: [{ agentId: 'a1', label: 'x'.repeat(70) }] })).toEqual({
      field: 'agents.0.label',
      message: 'Agent label must be at most 64 characters.',
    });
    expect(await refused('agents.add', { teamId: 't1', agentId: 'a1', label: 'x'.repeat(102) })).toEqual({
      field: 'label',
      message: 'Label must be at most 64 characters.',
    });
    const send = { teamId: 't1', agentId: 'a1', to: '+15551234567' };
    expect(await refused('send.message', { ...send, imageUrl: 'javascript:alert(1)' })).toEqual({
      field: 'imageUrl',
      message: 'Image URL must be an http(s) URL, not javascript:.',
    });
    expect(
      await refused('send.message', {
        ...send,
        documentUrl: 'https://x.test/a.pdf',
        documentFilename: 'f'.repeat(300),
      }),
    ).toEqual({
      field: 'documentFilename',
      message: 'Document file name must be at most 255 characters.',
    });
    expect(await refused('send.message', { ...send, text: 't'.repeat(65_537) })).toEqual({
      field: 'text',
      message: 'Message text must be at most 65536 characters.',
    });
    expect(await refused('tunnel.simulate', { agentId: 'a1', type: 'text', from: 'not a number', text: 'hi' })).toEqual(
      {
        field: 'from',
        message: 'From number must be a phone number in international form, digits only (e.g. +15550102000).',
      },
    );
    expect(impl['teams.add']).not.toHaveBeenCalled();
  });

  it('treats missing args of an args-less request as {}', async () => {
    const h = createHandlers(fakeContract().impl);
    expect(await h['teams.list'](undefined)).toEqual({ ok: true, value: [] });
  });

  it('send.message refuses a message with no content, or two kinds of content, before running', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const r = await h['send.message']({ teamId: 't1', agentId: 'a1', to: '+15551234567' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'text' } });
    const both = await h['send.message']({
      teamId: 't1',
      agentId: 'a1',
      to: '+15551234567',
      imageUrl: 'https://x.test/a.png',
      documentUrl: 'https://x.test/a.pdf',
    });
    expect(both).toMatchObject({ ok: false, error: { field: 'documentUrl' } });
    expect(impl['send.message']).not.toHaveBeenCalled();
  });

  it('tells 409 from 503 from a bad phone number', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const args = { teamId: 't1', agentId: 'a1', to: '+15551234567', text: 'hi' };
    impl['send.message'].mockRejectedValueOnce(new ChannelNotConfigured());
    impl['send.message'].mockRejectedValueOnce(new ChannelReconnecting({ rateLimit: { retryAfter: 7 } }));
    impl['send.message'].mockRejectedValueOnce(
      new InvalidRequest({ code: 'INVALID_PHONE', message: 'Not a phone number.' }),
    );
    const [a, b, c] = [await h['send.message'](args), await h['send.message'](args), await h['send.message'](args)];
    expect(a).toMatchObject({ ok: false, error: { kind: 'needs-scan', status: 409, code: 'CHANNEL_NOT_CONFIGURED' } });
    expect(b).toMatchObject({ ok: false, error: { kind: 'reconnecting', status: 503, retryAfterSec: 7 } });
    expect(c).toMatchObject({ ok: false, error: { kind: 'invalid-request', code: 'INVALID_PHONE' } });
  });

  it('unknown team → not-found ErrorDTO; unexpected throw → internal without details', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    impl['send.budget'].mockRejectedValueOnce(new NotFound({ code: 'TEAM_NOT_FOUND', message: 'No such team.' }));
    expect(await h['send.budget']({ teamId: 'nope' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found', code: 'TEAM_NOT_FOUND' },
    });
    impl['diagnostics.export'].mockRejectedValueOnce(new Error('ENOENT /home/me/secret/path'));
    const r = await h['diagnostics.export']({});
    expect(r).toMatchObject({ ok: false, error: { kind: 'internal' } });
    expect(JSON.stringify(r)).not.toContain('/home/me');
  });

  it('core errors cross with their contract kind and code', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const cases: Array<[Error, object]> = [
      [
        new TeamStoreError('KEY_REJECTED', 'The service rejected the API key.'),
        { kind: 'key-rejected', code: 'KEY_REJECTED' },
      ],
      [
        new TeamStoreError('INVALID', 'Service address must be an http(s) URL.', { field: 'baseUrl' }),
        { kind: 'validation', code: 'INVALID', field: 'baseUrl', message: 'Service address must be an http(s) URL.' },
      ],
      [
        new KeychainLocked('The OS keychain is locked.'),
        { kind: 'keychain', code: 'KEYCHAIN', message: 'The OS keychain is locked.' },
      ],
      [new TunnelError('not-found', 'no delivery d9'), { kind: 'not-found', code: 'TUNNEL_NOT_FOUND' }],
      [
        new TunnelError('no-secret', 'no signing secret is configured for agent a1'),
        { kind: 'invalid-request', code: 'TUNNEL_NO_SECRET' },
      ],
      [new ReplayError('not-found', 'no delivery d9'), { kind: 'not-found', code: 'REPLAY_NOT_FOUND' }],
    ];
    for (const [error, dto] of cases) {
      impl['teams.list'].mockRejectedValueOnce(error);
      expect(await h['teams.list']({}), error.message).toEqual({ ok: false, error: expect.objectContaining(dto) });
    }
  });

  it('alerts.snooze takes minutes (at least one) or tomorrow', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const status = {
      snoozedUntil: NOW + 30 * 60_000,
      quietHours: { enabled: false, start: '22:00', end: '07:00' },
      alertsPostedBy: null,
    };
    impl['alerts.snooze'].mockResolvedValue(status);
    expect(await h['alerts.snooze']({ minutes: 30 })).toEqual({ ok: true, value: status });
    expect(await h['alerts.snooze']({ until: 'tomorrow' })).toMatchObject({ ok: true });
    expect(impl['alerts.snooze'].mock.calls.map((c) => c[0])).toEqual([{ minutes: 30 }, { until: 'tomorrow' }]);
    expect(await h['alerts.snooze']({ minutes: 0 })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'minutes' },
    });
    expect(await h['alerts.snooze']({ until: 'next week' })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(impl['alerts.snooze']).toHaveBeenCalledTimes(2);
  });

  it('alerts.setQuietHours refuses the same start and end (an empty window) with a message on the end field', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const r = await h['alerts.setQuietHours']({ enabled: true, start: '22:00', end: '22:00' });
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'validation',
        code: 'INVALID_ARGUMENTS',
        field: 'end',
        message: 'Quiet hours need an end time different from the start time.',
      },
    });
    expect(impl['alerts.setQuietHours']).not.toHaveBeenCalled();
  });

  it('a rate-limited service error carries its ceiling per minute', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    impl['send.message'].mockRejectedValue(new RateLimited({ rateLimit: { limit: 60, retryAfter: 12 } }));
    const r = await h['send.message']({ teamId: 't1', agentId: 'a1', to: '+15550102000', text: 'hi' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'rate-limited', limit: 60, retryAfterSec: 12 } });
  });

  it('tunnel.replay refuses an edited body replayed as-received', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    impl['tunnel.replay'].mockImplementation(async ({ id }) => ({
      deliveryId: id,
      at: NOW,
      url: 'http://127.0.0.1:3000/hook',
      status: 200,
      durationMs: 5,
    }));
    const r = await h['tunnel.replay']({ id: 'd1', mode: 'as-received', body: '{}' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'body' } });
    expect(impl['tunnel.replay']).not.toHaveBeenCalled();
    expect(await h['tunnel.replay']({ id: 'd1', mode: 're-signed', body: '{}' })).toMatchObject({ ok: true });
  });

  it('settings.update takes the alert rules, webhook URL and theme; installId is read-only', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const rules = {
      reconnectGraceSec: 30,
      repeatDropGraceSec: 45,
      realertMinutes: 20,
      flapCount: 4,
      flapWindowMinutes: 15,
    };
    const r = await h['settings.update']({
      patch: { alertRules: rules, alertWebhookUrl: 'https://hooks.example.test/alerts', theme: 'dark' },
    });
    expect(r).toMatchObject({
      ok: true,
      value: {
        installId: 'install-fake-0001',
        alertRules: rules,
        alertWebhookUrl: 'https://hooks.example.test/alerts',
        theme: 'dark',
      },
    });
    expect(impl['settings.update']).toHaveBeenCalledWith({
      patch: { alertRules: rules, alertWebhookUrl: 'https://hooks.example.test/alerts', theme: 'dark' },
    });
    expect(await h['settings.update']({ patch: { alertWebhookUrl: null } })).toMatchObject({
      ok: true,
      value: { alertWebhookUrl: null },
    });

    const refused = [
      [{ installId: 'another-install-id' }, 'patch'],
      [{ alertWebhookUrl: 'ftp://hooks.example.test/a' }, 'patch.alertWebhookUrl'],
      [{ alertWebhookUrl: 'https://user:pw@hooks.example.test/a' }, 'patch.alertWebhookUrl'],
      [{ alertRules: { ...rules, flapCount: 1 } }, 'patch.alertRules.flapCount'],
      [{ alertRules: { ...rules, repeatDropGraceSec: -1 } }, 'patch.alertRules.repeatDropGraceSec'],
      [{ alertRules: { reconnectGraceSec: 5 } }, 'patch.alertRules.repeatDropGraceSec'],
      [{ theme: 'sepia' }, 'patch.theme'],
    ] as const;
    impl['settings.update'].mockClear();
    for (const [patch, field] of refused) {
      const bad = await h['settings.update']({ patch });
      expect(bad, JSON.stringify(patch)).toMatchObject({ ok: false, error: { kind: 'validation', field } });
    }
    expect(impl['settings.update']).not.toHaveBeenCalled();
  });

  it('health.history answers the history of that agent; both ids are required', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    const entries = [{ at: NOW, health: 'reconnecting' as const, previous: 'connected' as const, state: 'connecting' }];
    impl['health.history'].mockResolvedValueOnce(entries);
    expect(await h['health.history']({ teamId: 't1', agentId: 'a1' })).toEqual({ ok: true, value: entries });
    expect(impl['health.history']).toHaveBeenCalledWith({ teamId: 't1', agentId: 'a1' });
    expect(await h['health.history']({ teamId: 't1' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'agentId' },
    });
    expect(impl['health.history']).toHaveBeenCalledTimes(1);
  });

  it('tunnel.media answers the file as base64; bad ids never reach the tunnel; a not-found error crosses as one', async () => {
    const { impl } = fakeContract();
    const h = createHandlers(impl);
    impl['tunnel.media'].mockResolvedValue({
      filename: 'photo.png',
      mimeType: 'image/png',
      bytes: 3,
      dataBase64: 'AQID',
    });
    expect(await h['tunnel.media']({ id: 'd1' })).toEqual({
      ok: true,
      value: { filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' },
    });
    expect(impl['tunnel.media']).toHaveBeenCalledWith({ id: 'd1' });
    expect(await h['tunnel.media']({ id: '' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'id' },
    });
    expect(await h['tunnel.media']({ id: 'd1', url: 'https://evil.test' })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(impl['tunnel.media']).toHaveBeenCalledTimes(1);
    impl['tunnel.media'].mockRejectedValueOnce(
      new NotFound({ code: 'MEDIA_NOT_FOUND', message: 'That media link expired.' }),
    );
    expect(await h['tunnel.media']({ id: 'd2' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found', code: 'MEDIA_NOT_FOUND' },
    });
  });
});
