// Simulated deliveries (the Tunnel screen's Simulate) and replays of stored deliveries that reach a
// receiver are not from WhatsApp: their messages are marked simulated wherever they show, and a
// conversation that holds nothing else is never one to reply to (messages.send refuses it, nothing is
// sent). A real message from the same number makes it a conversation like any other.
import { describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageDTO, MessageThreadDTO } from '../../src-shared/contract';
import { signDelivery } from '../../src-main/core/signature';
import { REPLAY_HEADER } from '../../src-main/core/tunnel/headers';
import type { Companion } from '../../src-main/app/companion/companion';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const MADE_UP = '+15550100002';
const REPLAYED = '+15550103333';

describe('simulated and replayed deliveries in Messages', () => {
  let emu: Emulator;
  let companion: Companion;
  let teamId = '';
  const { call, ok, events } = companionSuite(
    'cc-simulated-',
    { agents: [{ agentId: AGENT }], register: AGENT, companion: { startTunnel: true } },
    (s) => ({ emu, companion, teamId } = s),
  );

  const messageFrom = (contact: string) =>
    waitFor(() => {
      const ev = events.find((e) => e.name === 'messages.new' && e.payload.message.contact === contact);
      return ev?.name === 'messages.new' ? ev.payload.message : undefined;
    }, 5000);
  const sentTo = async (to: string) =>
    (await ok<MessageDTO[]>('messages.sent', { teamId, agentId: AGENT })).filter((m) => m.contact === to);

  it('a simulated message: marked in the message, the conversation and its thread; a reply is refused, nothing sent', async () => {
    await ok('tunnel.simulate', { teamId, agentId: AGENT, type: 'text', from: MADE_UP, text: 'made up here' });
    expect(await messageFrom(MADE_UP)).toMatchObject({ text: 'made up here', simulated: true });
    const list = await ok<MessageContactsDTO>('messages.contacts', { teamId });
    expect(list.contacts.find((x) => x.contact === MADE_UP)).toMatchObject({
      simulated: true,
      last: { simulated: true },
    });
    const thread = await ok<MessageThreadDTO>('messages.thread', { teamId, agentId: AGENT, phone: MADE_UP });
    expect(thread).toMatchObject({ simulated: true, messages: [{ simulated: true }] });
    const r = await call('messages.send', { teamId, agentId: AGENT, to: MADE_UP, text: 'a real reply' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'invalid-request', code: 'SIMULATED_CONVERSATION' } });
    expect(await sentTo(MADE_UP)).toEqual([]);
  });

  it('a replay of a delivery that reaches the receiver (the replay header), validly signed: marked simulated too', async () => {
    const secret = (await ok<{ secret: string }>('webhook.revealSecret', { teamId, agentId: AGENT })).secret;
    const body = JSON.stringify({
      event: 'message.received',
      from: REPLAYED.slice(1),
      message: { id: 'wamid_replayed_1', type: 'text', text: 'replayed with an edited body', fromMe: false },
      timestamp: new Date().toISOString(),
    });
    const res = await fetch(`${companion.tunnelUrl()}/hooks/${AGENT}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signDelivery(secret, body, Math.floor(Date.now() / 1000)),
        [REPLAY_HEADER]: 're-signed',
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(await messageFrom(REPLAYED)).toMatchObject({ simulated: true });
    const list = await ok<MessageContactsDTO>('messages.contacts', { teamId });
    expect(list.contacts.find((x) => x.contact === REPLAYED)).toMatchObject({ simulated: true });
    const r = await call('messages.send', { teamId, agentId: AGENT, to: REPLAYED, text: 'hello?' });
    expect(r).toMatchObject({ ok: false, error: { code: 'SIMULATED_CONVERSATION' } });
  });

  it('a real message from the same number: no longer simulated through and through, a reply goes out', async () => {
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, { from: MADE_UP, text: 'a real one', id: 'wamid_real_1' });
    await waitFor(
      () => events.find((e) => e.name === 'messages.new' && e.payload.message.messageId === 'wamid_real_1'),
      5000,
    );
    const list = await ok<MessageContactsDTO>('messages.contacts', { teamId });
    expect(list.contacts.find((x) => x.contact === MADE_UP)?.simulated).toBeUndefined();
    const thread = await ok<MessageThreadDTO>('messages.thread', { teamId, agentId: AGENT, phone: MADE_UP });
    expect(thread.simulated).toBeUndefined();
    await ok('messages.send', { teamId, agentId: AGENT, to: MADE_UP, text: 'a real reply' });
    await waitFor(async () => ((await sentTo(MADE_UP)).length === 1 ? true : undefined), 5000);
  });
});
