import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, client, ctl, emulatorSuite } from './helpers';

const KEY = 'key-messages-aaaa';

describe('emulator: sends', () => {
  let emu: Emulator;
  let api: Api;
  const clock = emulatorSuite(
    KEY,
    {
      seed: {
        teams: [
          {
            id: 't1',
            apiKey: KEY,
            agents: [
              { agentId: 'on', state: 'connected', phone: '15550001111' },
              { agentId: 'off' },
              { agentId: 'down', state: 'reconnecting', phone: '15550002222' },
            ],
          },
          {
            id: 'small',
            apiKey: 'key-small-quota',
            monthlyQuota: 2,
            sendsPerMinute: 5,
            agents: [{ agentId: 's1', state: 'connected' }],
          },
        ],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );

  it('sends text, image and document; the response and the log have the type', async () => {
    const text = await api.send('on', { to: '+15551234567', text: 'hello' });
    expect(text.status).toBe(200);
    expect(text.body).toEqual({
      status: 'sent',
      messageId: expect.any(String),
      to: '+15551234567',
      type: 'text',
      timestamp: new Date(clock.now()).toISOString(),
    });
    expect(text.headers.get('x-ratelimit-limit')).toBe('60');
    expect(text.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(Number(text.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((clock.now() + 60_000) / 1000));
    const image = await api.send('on', {
      to: '15551234567@s.whatsapp.net',
      text: 'caption',
      imageUrl: 'https://example.com/a.png',
    });
    expect(image.body.type).toBe('image');
    const doc = await api.send('on', {
      to: '120363012345-99@g.us',
      documentUrl: 'http://example.com/a.pdf',
      documentFilename: 'a.pdf',
    });
    expect(doc.body.type).toBe('document');
    const state = await emu.control.state();
    expect(state.sentMessages.map((m) => m.type)).toEqual(['text', 'image', 'document']);
    expect(state.sentMessages[2]).toMatchObject({
      agentId: 'on',
      teamId: 't1',
      documentFilename: 'a.pdf',
      messageId: doc.body.messageId,
    });
  });

  it.each([
    ['bad recipient', { to: '12ab', text: 'x' }],
    ['too short number', { to: '+1234567', text: 'x' }],
    ['no content', { to: '+15551234567' }],
    ['blank text', { to: '+15551234567', text: '   ' }],
    ['both media', { to: '+15551234567', imageUrl: 'https://e.com/a', documentUrl: 'https://e.com/b' }],
    ['non-http url', { to: '+15551234567', imageUrl: 'ftp://e.com/a' }],
    ['missing to', { text: 'x' }],
    ['bad JSON', '{"to":'],
  ])('400 INVALID_REQUEST for %s, nothing logged', async (_name, body) => {
    const r = await api.send('on', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_REQUEST');
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await emu.control.state()).sentMessages).toHaveLength(0);
  });

  it('409 CHANNEL_NOT_CONFIGURED when unlinked or pairing; 503 CHANNEL_RECONNECTING when reconnecting', async () => {
    const off = await api.send('off', { to: '+15551234567', text: 'x' });
    expect(off.status).toBe(409);
    expect(off.body.error.code).toBe('CHANNEL_NOT_CONFIGURED');
    await api.startSession('off');
    expect((await api.send('off', { to: '+15551234567', text: 'x' })).status).toBe(409);
    const down = await api.send('down', { to: '+15551234567', text: 'x' });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('CHANNEL_RECONNECTING');
    await ctl(emu, 'POST', '/agents/down/recover');
    expect((await api.send('down', { to: '+15551234567', text: 'x' })).status).toBe(200);
  });

  it('the 61st send in a minute → 429 RATE_LIMITED with Retry-After; the window slides', async () => {
    for (let i = 0; i < 60; i++) {
      const r = await api.send('on', { to: '+15551234567', text: `n${i}` });
      expect(r.status).toBe(200);
      if (i === 0) await clock.advance(10_000);
    }
    const limited = await api.send('on', { to: '+15551234567', text: 'n60' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('50');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((clock.now() + 50_000) / 1000));
    // Chats and other calls are not counted.
    expect((await api.chat('on', { message: 'hi', user_id: 'u' })).status).toBe(200);
    await clock.advance(50_000);
    const again = await api.send('on', { to: '+15551234567', text: 'after' });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('per-team limit and monthly quota → 402 QUOTA_EXCEEDED', async () => {
    const small = client(emu, 'key-small-quota');
    const first = await small.send('s1', { to: '+15551234567', text: 'a' });
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    expect((await small.send('s1', { to: '+15551234567', text: 'b' })).status).toBe(200);
    const over = await small.send('s1', { to: '+15551234567', text: 'c' });
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('QUOTA_EXCEEDED');
    expect((await emu.control.state()).teams.find((t) => t.id === 'small')!.sendsThisMonth).toBe(2);
  });
});
