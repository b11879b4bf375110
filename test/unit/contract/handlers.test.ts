import { describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src-main/app/handlers';
import { ChannelNotConfigured, ChannelReconnecting, InvalidRequest, NotFound, RateLimited } from '../../../src-main/core/api/errors';
import { REQUEST_NAMES, type AnyEvent } from '../../../src-shared/contract';
import { fakeServices, NOW } from './fake-services';

const KEY = 'sk_live_abcdef1234567890_9f2c';

describe('createHandlers', () => {
  it('has one handler per contract request name', () => {
    const h = createHandlers(fakeServices().svc);
    expect(Object.keys(h).sort()).toEqual([...REQUEST_NAMES].sort());
  });

  it('adds a team and never returns the API key', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const r = await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [{ agentId: 'a1' }] });
    expect(r).toMatchObject({ ok: true, value: { teamId: 't1', keyHint: '…9f2c', agentIds: ['a1'] } });
    const list = await h['teams.list']({});
    expect(JSON.stringify([r, list])).not.toContain('abcdef1234567890');
  });

  it('rejects bad args with a validation ErrorDTO naming the field, and runs nothing', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const r = await h['teams.add']({ label: 'Ops', baseUrl: 'file:///etc/passwd', apiKey: KEY, agents: [] });
    expect(r).toEqual({ ok: false, error: expect.objectContaining({ kind: 'validation', field: 'baseUrl' }) });
    expect(svc.accounts.addTeam).not.toHaveBeenCalled();

    const extra = await h['teams.remove']({ teamId: 't1', evil: true });
    expect(extra.ok).toBe(false);
    expect(svc.accounts.removeTeam).not.toHaveBeenCalled();

    const notObject = await h['teams.remove']('t1');
    expect(notObject).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });

  it('treats missing args of an args-less request as {}', async () => {
    const h = createHandlers(fakeServices().svc);
    expect(await h['teams.list'](undefined)).toEqual({ ok: true, value: [] });
  });

  it('send.message refuses a message with no content before calling the client', async () => {
    const { svc, client } = fakeServices();
    const h = createHandlers(svc);
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [] });
    const r = await h['send.message']({ teamId: 't1', agentId: 'a1', to: '+15551234567' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'text' } });
    const both = await h['send.message']({ teamId: 't1', agentId: 'a1', to: '+15551234567', imageUrl: 'https://x.test/a.png', documentUrl: 'https://x.test/a.pdf' });
    expect(both).toMatchObject({ ok: false, error: { field: 'documentUrl' } });
    expect(client.send).not.toHaveBeenCalled();
  });

  it('tells 409 from 503 from a bad phone number', async () => {
    const { svc, client } = fakeServices();
    const h = createHandlers(svc);
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [] });
    const args = { teamId: 't1', agentId: 'a1', to: '+15551234567', text: 'hi' };
    client.send.mockRejectedValueOnce(new ChannelNotConfigured());
    client.send.mockRejectedValueOnce(new ChannelReconnecting({ rateLimit: { retryAfter: 7 } }));
    client.send.mockRejectedValueOnce(new InvalidRequest({ code: 'INVALID_PHONE', message: 'Not a phone number.' }));
    const [a, b, c] = [await h['send.message'](args), await h['send.message'](args), await h['send.message'](args)];
    expect(a).toMatchObject({ ok: false, error: { kind: 'not-configured', status: 409, code: 'CHANNEL_NOT_CONFIGURED' } });
    expect(b).toMatchObject({ ok: false, error: { kind: 'reconnecting', status: 503, retryAfterSec: 7 } });
    expect(c).toMatchObject({ ok: false, error: { kind: 'invalid-request', code: 'INVALID_PHONE' } });
  });

  it('publishes send.progress for queued and retrying sends, tagged with clientRef', async () => {
    const { svc, client } = fakeServices();
    const h = createHandlers(svc);
    const seen: AnyEvent[] = [];
    svc.events.subscribe((e) => seen.push(e));
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [] });
    client.send.mockImplementationOnce(async (_agent, req, opts) => {
      opts?.onQueued?.({ id: 'q-7', position: 2, waitMs: 1500 });
      opts?.onRetry?.({ attempt: 1, delayMs: 500, error: new RateLimited().toDTO() });
      return { status: 'sent', messageId: 'm9', to: req.to };
    });
    const r = await h['send.message']({ teamId: 't1', agentId: 'a1', to: '15551234567', text: 'hi', clientRef: 'c1' });
    expect(r).toEqual({ ok: true, value: { status: 'sent', messageId: 'm9', to: '15551234567' } });
    const progress = seen.filter((e) => e.name === 'send.progress').map((e) => e.payload);
    expect(progress).toEqual([
      { teamId: 't1', agentId: 'a1', to: '15551234567', clientRef: 'c1', phase: 'queued', queuedId: 'q-7', position: 2, waitMs: 1500 },
      expect.objectContaining({ phase: 'retrying', attempt: 1, delayMs: 500, error: expect.objectContaining({ kind: 'rate-limited' }) }),
    ]);
    // The client never receives clientRef in the request body.
    expect(client.send.mock.calls[0]?.[1]).toEqual({ to: '15551234567', text: 'hi' });
  });

  it('webhook.register hands the secret to the tunnel and returns only mode and url', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [] });
    const r = await h['webhook.register']({ teamId: 't1', agentId: 'a1', publicUrl: 'https://hooks.example.test/in' });
    expect(r).toEqual({ ok: true, value: { mode: 'passthrough', url: 'https://hooks.example.test/in' } });
    expect(JSON.stringify(r)).not.toContain('TOPSECRET');
    expect(svc.tunnel.registerSecret).toHaveBeenCalledWith('t1', 'a1', 'whsec_TOPSECRET_value', 'https://hooks.example.test/in');
  });

  it('pairing.start posts then reads the session (QR included)', async () => {
    const { svc, client } = fakeServices();
    const h = createHandlers(svc);
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [] });
    const r = await h['pairing.start']({ teamId: 't1', agentId: 'a1' });
    expect(client.startPairing).toHaveBeenCalledWith('a1');
    expect(r).toMatchObject({ ok: true, value: { teamId: 't1', agentId: 'a1', needsScan: true, qr: 'data:image/png;base64,AAAA' } });
  });

  it('unknown team → not-found ErrorDTO; unexpected throw → internal without details', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    expect(await h['send.budget']({ teamId: 'nope' })).toMatchObject({ ok: false, error: { kind: 'not-found', code: 'TEAM_NOT_FOUND' } });
    svc.diagnostics.mockRejectedValueOnce(new Error('ENOENT /home/me/secret/path'));
    const r = await h['diagnostics.export']({});
    expect(r).toMatchObject({ ok: false, error: { kind: 'internal' } });
    expect(JSON.stringify(r)).not.toContain('/home/me');
  });

  it('agents.list joins health from the monitor (unknown when not yet polled); snapshot reports the worst', async () => {
    const { svc, health } = fakeServices();
    const h = createHandlers(svc);
    await h['teams.add']({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: KEY, agents: [{ agentId: 'a1' }, { agentId: 'a2' }] });
    health.push({ teamId: 't1', agentId: 'a1', health: 'needs-scan', sessionState: 'unlinked', phone: null, needsScan: true, since: NOW, checkedAt: NOW });
    const r = await h['agents.list']({});
    expect(r.ok && r.value.map((a) => a.health.health)).toEqual(['needs-scan', 'unknown']);
    const s = await h['health.snapshot']({});
    expect(s).toMatchObject({ ok: true, value: { worst: 'needs-scan', at: NOW } });
  });

  it('alerts.snooze computes the end from minutes or tomorrow morning', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const r = await h['alerts.snooze']({ minutes: 30 });
    expect(r).toMatchObject({ ok: true, value: { snoozedUntil: NOW + 30 * 60_000 } });
    const t = await h['alerts.snooze']({ until: 'tomorrow' });
    const until = t.ok ? t.value.snoozedUntil! : 0;
    expect(new Date(until).getHours()).toBe(8);
    expect(until).toBeGreaterThan(NOW);
    expect(until - NOW).toBeLessThanOrEqual(48 * 3600_000);
    expect(await h['alerts.snooze']({ minutes: 0 })).toMatchObject({ ok: false, error: { kind: 'validation', field: 'minutes' } });
  });

  it('tunnel.replay refuses an edited body replayed as-received', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const r = await h['tunnel.replay']({ id: 'd1', mode: 'as-received', body: '{}' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'body' } });
    expect(svc.tunnel.replay).not.toHaveBeenCalled();
    expect(await h['tunnel.replay']({ id: 'd1', mode: 're-signed', body: '{}' })).toMatchObject({ ok: true });
  });

  it('settings.update takes the alert rules, webhook URL and theme; installId is read-only', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const rules = { reconnectGraceSec: 30, realertMinutes: 20, flapCount: 4, flapWindowMinutes: 15 };
    const r = await h['settings.update']({ patch: { alertRules: rules, alertWebhookUrl: 'https://hooks.example.test/alerts', theme: 'dark' } });
    expect(r).toMatchObject({ ok: true, value: { installId: 'install-fake-0001', alertRules: rules, alertWebhookUrl: 'https://hooks.example.test/alerts', theme: 'dark' } });
    expect(svc.accounts.updateSettings).toHaveBeenCalledWith({ alertRules: rules, alertWebhookUrl: 'https://hooks.example.test/alerts', theme: 'dark' });
    expect(await h['settings.update']({ patch: { alertWebhookUrl: null } })).toMatchObject({ ok: true, value: { alertWebhookUrl: null } });

    const refused = [
      [{ installId: 'another-install-id' }, 'patch'],
      [{ alertWebhookUrl: 'ftp://hooks.example.test/a' }, 'patch.alertWebhookUrl'],
      [{ alertWebhookUrl: 'https://user:pw@hooks.example.test/a' }, 'patch.alertWebhookUrl'],
      [{ alertRules: { ...rules, flapCount: 1 } }, 'patch.alertRules.flapCount'],
      [{ alertRules: { reconnectGraceSec: 5 } }, 'patch.alertRules.realertMinutes'],
      [{ theme: 'sepia' }, 'patch.theme'],
    ] as const;
    svc.accounts.updateSettings.mockClear();
    for (const [patch, field] of refused) {
      const bad = await h['settings.update']({ patch });
      expect(bad, JSON.stringify(patch)).toMatchObject({ ok: false, error: { kind: 'validation', field } });
    }
    expect(svc.accounts.updateSettings).not.toHaveBeenCalled();
  });

  it('alerts.history answers the monitor history of that agent', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    const entries = [{ at: NOW, health: 'reconnecting' as const, previous: 'connected' as const, rawState: 'connecting' }];
    svc.monitor.history.mockResolvedValueOnce(entries);
    expect(await h['alerts.history']({ teamId: 't1', agentId: 'a1' })).toEqual({ ok: true, value: entries });
    expect(svc.monitor.history).toHaveBeenCalledWith('t1', 'a1');
    expect(await h['alerts.history']({ teamId: 't1' })).toMatchObject({ ok: false, error: { kind: 'validation', field: 'agentId' } });
  });

  it('tunnel.media answers the file as base64; bad ids never reach the tunnel; a not-found error crosses as one', async () => {
    const { svc } = fakeServices();
    const h = createHandlers(svc);
    expect(await h['tunnel.media']({ id: 'd1' })).toEqual({ ok: true, value: { filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' } });
    expect(svc.tunnel.media).toHaveBeenCalledWith('d1');
    expect(await h['tunnel.media']({ id: '' })).toMatchObject({ ok: false, error: { kind: 'validation', field: 'id' } });
    expect(await h['tunnel.media']({ id: 'd1', url: 'https://evil.test' })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(svc.tunnel.media).toHaveBeenCalledTimes(1);
    svc.tunnel.media.mockRejectedValueOnce(new NotFound({ code: 'MEDIA_NOT_FOUND', message: 'That media link expired.' }));
    expect(await h['tunnel.media']({ id: 'd2' })).toMatchObject({ ok: false, error: { kind: 'not-found', code: 'MEDIA_NOT_FOUND' } });
  });
});
