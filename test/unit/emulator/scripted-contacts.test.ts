// Scripted contacts: a number that answers what an agent sends it (echo, fixed, image, silence; a
// picture every Nth answer), after its delay on the emulator's clock, as an ordinary inbound message
// delivered signed to the agent's webhook; the control API adds, lists and removes them, and the
// default seed's demo contact keeps the demo inbox alive.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { defaultSeed } from '../../../src-main/emulator/seed';
import { type Api, ctl, emulatorSuite } from './helpers';
import { startReceiver } from './receiver';

/** The demo team's scripted contact (it answers every message). */
const DEMO_SCRIPTED_CONTACT = '15550100042';

const KEY = 'key-scripted-aaaa';

describe('emulator: scripted contacts', () => {
  let emu: Emulator;
  let api: Api;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx.close());
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
              { agentId: 'other', state: 'connected', phone: '15550001112' },
            ],
          },
        ],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );
  beforeEach(async () => {
    rx.received.length = 0;
    rx.onRequest((_n, res) => res.writeHead(200).end('ok'));
  });

  /** What reached the webhook: [type, text, caption, from]. */
  const delivered = () =>
    rx.received.map((r) => {
      const m = r.json as { from: string; message: { type: string; text: string; caption?: string } };
      return [m.message.type, m.message.text, m.message.caption ?? null, m.from];
    });

  it('an echo contact answers each message after its delay; every Nth answer is a picture', async () => {
    await api.webhook('on', { url: rx.url });
    const added = await ctl(emu, 'POST', '/scripted-contacts', {
      phone: '+15550109000',
      rule: 'echo',
      imageEvery: 2,
      delayMs: 500,
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ phone: '15550109000', rule: 'echo', imageEvery: 2, delayMs: 500 });
    expect((await api.send('on', { to: '+15550109000', text: 'hello' })).status).toBe(200);
    await emu.control.deliveriesIdle();
    expect(rx.received).toHaveLength(0);
    await clock.advance(500);
    await emu.control.deliveriesIdle();
    await api.send('on', { to: '15550109000', text: 'second' });
    await clock.advance(500);
    await emu.control.deliveriesIdle();
    expect(delivered()).toEqual([
      ['text', 'You said: hello', null, '15550109000'],
      ['image', 'You said: second', 'You said: second', '15550109000'],
    ]);
    // The picture can be downloaded like any inbound media.
    expect((await ctl(emu, 'GET', '/state')).body.counters.inbound).toBe(2);
    // It is on WhatsApp.
    expect((await api.contact('on', '15550109000')).body.exists).toBe(true);
  });

  it('fixed, image and silence; agentIds limits who gets answers; removal stops them', async () => {
    await api.webhook('on', { url: rx.url });
    await api.webhook('other', { url: rx.url });
    await ctl(emu, 'POST', '/scripted-contacts', {
      phone: '+15550109001',
      rule: 'fixed',
      reply: 'We are closed today.',
      delayMs: 0,
      agentIds: ['on'],
    });
    await ctl(emu, 'POST', '/scripted-contacts', { phone: '+15550109002', rule: 'image', delayMs: 0 });
    await ctl(emu, 'POST', '/scripted-contacts', { phone: '+15550109003', rule: 'silence' });
    await api.send('on', { to: '+15550109001', text: 'open?' });
    await api.send('other', { to: '+15550109001', text: 'open?' });
    await api.send('on', { to: '+15550109002', imageUrl: 'https://example.test/a.png' });
    await api.send('on', { to: '+15550109003', text: 'anyone?' });
    await clock.advance(1000);
    await emu.control.deliveriesIdle();
    expect(delivered()).toEqual([
      ['text', 'We are closed today.', null, '15550109001'],
      ['image', 'Here is a picture.', 'Here is a picture.', '15550109002'],
    ]);
    const list = await ctl(emu, 'GET', '/scripted-contacts');
    expect(list.body.map((c: { phone: string; answers: number }) => [c.phone, c.answers])).toEqual([
      ['15550109001', 1],
      ['15550109002', 1],
      ['15550109003', 0],
    ]);
    expect((await ctl(emu, 'DELETE', '/scripted-contacts/15550109001')).body).toEqual({ removed: true });
    await api.send('on', { to: '+15550109001', text: 'open now?' });
    await clock.advance(1000);
    await emu.control.deliveriesIdle();
    expect(rx.received).toHaveLength(2);
  });

  it('bad input is refused and adds nothing', async () => {
    for (const bad of [
      { phone: '123', rule: 'echo' },
      { phone: '+15550109000', rule: 'shout' },
      { phone: '+15550109000', rule: 'echo', delayMs: -1 },
      { phone: '+15550109000', rule: 'echo', extra: 1 },
    ]) {
      expect((await ctl(emu, 'POST', '/scripted-contacts', bad)).status).toBe(400);
    }
    expect((await ctl(emu, 'GET', '/scripted-contacts')).body).toEqual([]);
  });

  it('reset forgets the contacts and the answers still waiting', async () => {
    await api.webhook('on', { url: rx.url });
    await ctl(emu, 'POST', '/scripted-contacts', { phone: '+15550109000', rule: 'echo', delayMs: 500 });
    await api.send('on', { to: '+15550109000', text: 'hello' });
    emu.control.reset();
    await clock.advance(1000);
    expect(rx.received).toHaveLength(0);
    expect((await ctl(emu, 'GET', '/scripted-contacts')).body).toEqual([]);
  });

  it('an inbound message can be injected as sent from the phone (fromMe)', async () => {
    await api.webhook('on', { url: rx.url });
    await ctl(emu, 'POST', '/agents/on/inbound', { from: '+15550109000', text: 'typed on the phone', fromMe: true });
    await emu.control.deliveriesIdle();
    expect((rx.received[0]!.json as { message: { fromMe: boolean } }).message.fromMe).toBe(true);
  });
});

describe('the default seed', () => {
  let emu: Emulator;
  let api: Api;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx.close());
  const seed = defaultSeed();
  const clock = emulatorSuite(seed.teams[0]!.apiKey, { seed }, (e, a) => ((emu = e), (api = a)));

  it('has a demo contact on WhatsApp that answers each message sent to it', async () => {
    rx.onRequest((_n, res) => res.writeHead(200).end('ok'));
    expect((await api.contact('agent-connected', DEMO_SCRIPTED_CONTACT)).body.exists).toBe(true);
    await api.webhook('agent-connected', { url: rx.url });
    await api.send('agent-connected', { to: `+${DEMO_SCRIPTED_CONTACT}`, text: 'hi Robin' });
    await clock.advance(5000);
    await emu.control.deliveriesIdle();
    expect(rx.received.map((r) => (r.json as { from: string; message: { text: string } }).message.text)).toEqual([
      'You said: hi Robin',
    ]);
  });
});
