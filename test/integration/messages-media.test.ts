// messages.media and messages.saveMedia over the companion, its receiver and the emulator: an
// inbound picture is fetched by the main side with the team's key (never sent to the blob's
// origin), kept in the data folder's media cache and answered as a data: URL; a document is answered
// for saving (the browser host's download, or the desktop's save dialog); a link the service no
// longer serves is said plainly; sends, text and unknown messages are refused with reasons; a deleted
// conversation takes its cached files along.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageDTO, MessageMediaDTO, SavedMediaDTO } from '../../src-shared/contract';
import { createHandlers } from '../../src-main/app/handlers';
import { implementContract } from '../../src-main/app/contract';
import type { Companion } from '../../src-main/app/companion/companion';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, state, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const PHONE = '+15550108888';

describe('message media over the companion and the emulator', () => {
  let emu: Emulator;
  let dir: string;
  let cacheDir: string;
  let companion: Companion;
  let teamId = '';
  const { call, ok, events } = companionSuite(
    'cc-messages-media-',
    { agents: [{ agentId: AGENT }], register: AGENT, companion: { startTunnel: true, tunnelPort: 0 } },
    (s) => {
      ({ emu, dir, companion, teamId } = s);
      cacheDir = path.join(dir, 'data', 'messages', 'media');
    },
  );

  /** A contact sends `body`; answers the stored message once it is announced. */
  const inbound = async (body: Record<string, unknown>): Promise<MessageDTO> => {
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, { from: PHONE, ...body });
    const ev = await waitFor(
      () => events.find((e) => e.name === 'messages.new' && e.payload.message.messageId === body['id']),
      5000,
    );
    if (ev.name !== 'messages.new') throw new Error('not a message');
    return ev.payload.message;
  };
  const args = (m: MessageDTO) => ({ teamId, agentId: AGENT, messageKey: m.key });

  it('a picture: fetched with the key on the service only, cached, answered as a data: URL; still shown once the link expired', async () => {
    const m = await inbound({ type: 'image', caption: 'the receipt', id: 'wamid_img_1' });
    const media = await ok<MessageMediaDTO>('messages.media', args(m));
    expect(media).toMatchObject({ mimeType: 'image/png', filename: 'image-wamid_img_1.png' });
    expect(media.dataUrl).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(Buffer.from(media.dataUrl!.split(',')[1]!, 'base64').length).toBe(media.bytes);
    expect((await state(emu)).mediaRequestsWithAuthorization).toBe(0);
    const files = await readdir(cacheDir);
    expect(files.map((n) => path.extname(n)).sort()).toEqual(['.bin', '.json']);
    // The cache, not the service, answers from now on: the link expiring changes nothing shown.
    const before = (await state(emu)).mediaRequests;
    await control(emu, 'POST', `/agents/${AGENT}/media/wamid_img_1/expire`);
    expect(await ok<MessageMediaDTO>('messages.media', args(m))).toEqual(media);
    expect((await state(emu)).mediaRequests).toBe(before);
  });

  it('a picture whose link expired before it was fetched: said plainly, without the message text', async () => {
    const m = await inbound({ type: 'image', caption: 'private caption words', id: 'wamid_img_2' });
    await control(emu, 'POST', `/agents/${AGENT}/media/wamid_img_2/expire`);
    const r = await call('messages.media', args(m));
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'not-found',
        code: 'MEDIA_EXPIRED',
        message: 'This picture is no longer available from the service.',
      },
    });
    expect(JSON.stringify(r)).not.toContain('private caption');
    expect(await readdir(cacheDir)).toHaveLength(2);
  });

  it('a document: no data: URL; saved as a download in the browser host, through the save dialog on the desktop', async () => {
    const m = await inbound({ type: 'document', filename: 'invoice-42.pdf', id: 'wamid_doc_1' });
    const media = await ok<MessageMediaDTO>('messages.media', args(m));
    expect(media).toMatchObject({ filename: 'invoice-42.pdf', mimeType: 'application/pdf', dataUrl: null });
    const saved = await ok<SavedMediaDTO>('messages.saveMedia', args(m));
    expect(saved.saved).toBe('download');
    if (saved.saved !== 'download') throw new Error('not a download');
    expect(saved.file.filename).toBe('invoice-42.pdf');
    expect(Buffer.from(saved.file.dataBase64, 'base64').toString('utf8')).toMatch(/^%PDF-1\.4/);

    const target = path.join(dir, 'chosen.pdf');
    let asked: string | null = null;
    const desktop = implementContract(companion, {
      media: {
        askSavePath: async (name) => {
          asked = name;
          return target;
        },
      },
    });
    const cancelling = implementContract(companion, { media: { askSavePath: async () => null } });
    try {
      const d = await createHandlers(desktop.implementations)['messages.saveMedia'](args(m));
      expect(d).toEqual({ ok: true, value: { saved: 'file', filename: 'chosen.pdf' } });
      expect(asked).toBe('invoice-42.pdf');
      expect((await readFile(target, 'utf8')).startsWith('%PDF-1.4')).toBe(true);
      expect(await createHandlers(cancelling.implementations)['messages.saveMedia'](args(m))).toEqual({
        ok: true,
        value: { saved: 'cancelled' },
      });
    } finally {
      desktop.dispose();
      cancelling.dispose();
    }

    const gone = await inbound({ type: 'document', filename: 'old.pdf', id: 'wamid_doc_2' });
    await control(emu, 'POST', `/agents/${AGENT}/media/wamid_doc_2/expire`);
    expect(await call('messages.saveMedia', args(gone))).toMatchObject({
      ok: false,
      error: { code: 'MEDIA_EXPIRED', message: 'This file is no longer available from the service.' },
    });
  });

  it('text, sends by link, unknown keys and bad arguments are refused with reasons', async () => {
    const text = await inbound({ text: 'hello', id: 'wamid_txt_1' });
    expect(await call('messages.media', args(text))).toMatchObject({ ok: false, error: { code: 'NO_MEDIA' } });
    await ok('messages.send', {
      teamId,
      agentId: AGENT,
      to: PHONE,
      imageUrl: 'https://example.com/cat.png',
      text: 'a cat',
    });
    const sent = await waitFor(async () => {
      const t = await ok<{ messages: MessageDTO[] }>('messages.thread', { teamId, agentId: AGENT, phone: PHONE });
      return t.messages.find((x) => x.direction === 'out' && x.type === 'image');
    }, 5000);
    expect(await call('messages.media', args(sent))).toMatchObject({
      ok: false,
      error: { code: 'MEDIA_SENT_BY_URL' },
    });
    expect(await call('messages.media', { teamId, agentId: AGENT, messageKey: 'no-such' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found', code: 'NO_MESSAGE' },
    });
    expect(await call('messages.media', { teamId, agentId: 'agent-unknown', messageKey: 'x' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found', code: 'NO_AGENT' },
    });
    expect(await call('messages.media', { teamId, agentId: AGENT, messageKey: '' })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(await call('messages.media', { teamId, agentId: AGENT })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
  });

  it('deleting the conversation takes its cached files along', async () => {
    expect((await readdir(cacheDir)).length).toBeGreaterThan(0);
    await ok('messages.deleteConversation', { teamId, agentId: AGENT, phone: PHONE });
    expect(await readdir(cacheDir)).toEqual([]);
  });
});
