import { PNG } from 'pngjs';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, client, ctl, emulatorSuite } from './helpers';

const KEY = 'key-media-aaaaaa';

describe('emulator: media, contacts, settings', () => {
  let emu: Emulator;
  let api: Api;
  const clock = emulatorSuite(
    KEY,
    {
      seed: {
        teams: [
          { id: 't1', apiKey: KEY, agents: [{ agentId: 'on', state: 'connected', phone: '15550001111' }] },
          { id: 't2', apiKey: 'key-media-other', agents: [{ agentId: 'x', state: 'connected' }] },
        ],
        contacts: ['15551234567'],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );

  const inbound = async (body: Record<string, unknown>) =>
    (await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', ...body })).body.messageId as string;

  it('GET media → 302 to a blob on the second origin that serves the bytes without auth', async () => {
    const id = await inbound({ type: 'image' });
    const r = await api.media('on', id);
    expect(r.status).toBe(302);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    const location = r.headers.get('location')!;
    expect(location.startsWith(`${emu.mediaOrigin}/blob/`)).toBe(true);
    expect(new URL(location).origin).not.toBe(new URL(emu.baseUrl).origin);
    const blob = await fetch(location);
    expect(blob.status).toBe(200);
    expect(blob.headers.get('content-type')).toBe('image/png');
    expect(blob.headers.get('content-disposition')).toBe(`attachment; filename="image-${id}.png"`);
    const png = PNG.sync.read(Buffer.from(await blob.arrayBuffer()));
    expect([png.width, png.height]).toEqual([120, 80]);
    let state = await emu.control.state();
    expect(state.mediaRequestsWithAuthorization).toBe(0);
    expect(state.counters.mediaRequests).toBe(1);
    // A leaky client that sends the key to the blob origin is counted.
    await (await fetch(location, { headers: { authorization: `Bearer ${KEY}` } })).arrayBuffer();
    state = await emu.control.state();
    expect(state.mediaRequestsWithAuthorization).toBe(1);
  });

  it('documents get a PDF-like body with the given name and type', async () => {
    const id = await inbound({ type: 'document', filename: 'report.pdf', caption: 'Q3' });
    const location = (await api.media('on', id)).headers.get('location')!;
    const res = await fetch(location);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.pdf"');
    expect((await res.text()).startsWith('%PDF-1.4')).toBe(true);
  });

  it('blob links expire after 5 minutes (410), unknown links are 404; unknown/text messages are 404', async () => {
    const id = await inbound({ type: 'image' });
    const location = (await api.media('on', id)).headers.get('location')!;
    await clock.advance(5 * 60_000 - 1);
    expect((await (await fetch(location)).arrayBuffer()).byteLength).toBeGreaterThan(0);
    await clock.advance(1);
    const gone = await fetch(location);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('MEDIA_LINK_EXPIRED');
    expect((await fetch(`${emu.mediaOrigin}/blob/nope`)).status).toBe(404);
    expect((await api.media('on', 'missing')).body.error.code).toBe('MESSAGE_NOT_FOUND');
    const textId = await inbound({ text: 'plain' });
    expect((await api.media('on', textId)).body.error.code).toBe('MEDIA_NOT_FOUND');
    expect((await client(emu, 'key-media-other').media('on', id)).status).toBe(404);
    expect((await client(emu, null).media('on', id)).status).toBe(401);
  });

  it('a message whose media the control route expired: 410 MEDIA_EXPIRED from the media endpoint; no media → 404', async () => {
    const id = await inbound({ type: 'image' });
    expect((await api.media('on', id)).status).toBe(302);
    expect((await ctl(emu, 'POST', `/agents/on/media/${id}/expire`)).body).toEqual({ expired: true });
    const r = await api.media('on', id);
    expect(r.status).toBe(410);
    expect(r.body.error.code).toBe('MEDIA_EXPIRED');
    const textId = await inbound({ text: 'plain' });
    expect((await ctl(emu, 'POST', `/agents/on/media/${textId}/expire`)).status).toBe(404);
  });

  it('contacts: + or digits; exists for the configured set; invalid → 400', async () => {
    expect((await api.contact('on', '+15551234567')).body).toEqual({
      phone: '15551234567',
      exists: true,
      jid: '15551234567@s.whatsapp.net',
    });
    expect((await api.contact('on', '15550000000')).body).toEqual({
      phone: '15550000000',
      exists: false,
      jid: '15550000000@s.whatsapp.net',
    });
    expect((await api.contact('on', '%2B15551234567')).body.exists).toBe(true);
    const bad = await api.contact('on', '12ab');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    expect(bad.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await ctl(emu, 'POST', '/contacts', { phones: ['+15550000000'] })).body).toEqual({ count: 1 });
    expect((await api.contact('on', '15550000000')).body.exists).toBe(true);
    expect((await api.contact('on', '15551234567')).body.exists).toBe(false);
    expect((await ctl(emu, 'POST', '/contacts', { phones: ['nope'] })).status).toBe(400);
  });

  it('settings: defaults off, any subset updates, unknown/non-boolean/empty → 400', async () => {
    const r = await api.settings('on', { readReceipts: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ groups: false, readReceipts: true, deliveryReceipts: false });
    expect((await api.settings('on', { groups: true, readReceipts: false })).body).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: false,
    });
    for (const bad of [{}, { groups: 'yes' }, { typing: true }, undefined, [true]]) {
      const e = await api.settings('on', bad);
      expect(e.status).toBe(400);
      expect(e.body.error.code).toBe('INVALID_REQUEST');
    }
    const unknown = await api.settings('on', { typing: true });
    expect(unknown.body.error.message).toContain('typing');
    expect((await emu.control.state()).agents.find((a) => a.agentId === 'on')!.settings).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: false,
    });
  });
});
