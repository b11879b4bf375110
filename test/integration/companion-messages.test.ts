// messages.* end to end over the companion, its receiver and the emulator: a contact writes (a
// signed delivery through the receiver), the message reaches the index and a messages.new event; a
// reply from the composer goes through the client and lands in the send log; the console's sends are
// recorded in the same log; read marks, names, deletion; and the reason given when this app is not
// the agent's receiver.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageThreadDTO } from '../../src-shared/contract';
import { SendLog } from '../../src-main/core/messages';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const OTHER = 'agent-flaky';

describe('messages over the companion and the emulator', () => {
  let emu: Emulator;
  let dir: string;
  let teamId = '';
  const { call, ok, events } = companionSuite(
    'cc-messages-',
    { agents: [{ agentId: AGENT }, { agentId: OTHER }], register: AGENT, companion: { startTunnel: true } },
    (s) => ({ emu, dir, teamId } = s),
  );

  it('a contact writes: the message is in the contacts and the thread, announced once', async () => {
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, {
      from: '+15550107777',
      text: 'is my order on its way?',
      id: 'wamid_in_1',
    });
    const ev = await waitFor(() => events.find((e) => e.name === 'messages.new'), 5000);
    expect(ev.payload).toMatchObject({
      message: {
        teamId,
        agentId: AGENT,
        contact: '+15550107777',
        direction: 'in',
        text: 'is my order on its way?',
        messageId: 'wamid_in_1',
      },
    });
    const list = await ok<MessageContactsDTO>('messages.contacts', { teamId });
    expect(list.contacts).toMatchObject([
      { agentId: AGENT, contact: '+15550107777', unread: 1, last: { text: 'is my order on its way?' } },
    ]);
    expect(list.unread).toBe(1);
    expect(list.retentionDays).toBe(90);
    // This app receives AGENT's deliveries; OTHER's webhook points elsewhere: said, with words.
    const gaps = Object.fromEntries(list.agents.map((a) => [a.agentId, a.gap]));
    expect(gaps).toEqual({ [AGENT]: null, [OTHER]: 'not-registered' });
    expect(list.agents.find((a) => a.agentId === OTHER)?.reason).toMatch(
      /^Not registered here: this install has not pointed the agent's webhook at its receiver/,
    );
  });

  it('a reply from the composer is sent through the client and recorded; the console records too', async () => {
    const sent = await ok<{ status: string; messageId: string }>('messages.send', {
      teamId,
      agentId: AGENT,
      to: '+15550107777',
      text: 'Yes, it ships today.',
    });
    expect(sent.status).toBe('sent');
    await ok('send.message', { teamId, agentId: AGENT, to: '+15550107777', text: 'Tracking: 123' });
    const thread = await waitFor(async () => {
      const t = await ok<MessageThreadDTO>('messages.thread', { teamId, agentId: AGENT, phone: '+15550107777' });
      return t.messages.length === 3 ? t : null;
    }, 5000);
    expect(thread.messages.map((m) => [m.direction, m.text, m.via ?? null])).toEqual([
      ['in', 'is my order on its way?', null],
      ['out', 'Yes, it ships today.', 'messages'],
      ['out', 'Tracking: 123', 'console'],
    ]);
    expect(thread.messages[1]!.messageId).toBe(sent.messageId);
    const log = (await readFile(path.join(dir, 'data', 'messages', 'sent.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { via: string; teamId: string; status: string });
    expect(log.map((r) => [r.via, r.teamId, r.status])).toEqual([
      ['messages', teamId, 'sent'],
      ['console', teamId, 'sent'],
    ]);
  });

  it('a failed send is recorded with its error (a number that needs a scan)', async () => {
    const unlinked = await call('messages.send', {
      teamId,
      agentId: 'agent-unlinked',
      to: '+15550107777',
      text: 'hello?',
    });
    expect(unlinked.ok).toBe(false);
    const t = await waitFor(async () => {
      const r = await ok<MessageThreadDTO>('messages.thread', {
        teamId,
        agentId: 'agent-unlinked',
        phone: '+15550107777',
      });
      return r.messages.length > 0 ? r : null;
    }, 5000);
    expect(t.messages[0]).toMatchObject({ status: 'failed', error: { kind: 'needs-scan' } });
  });

  it('marks read, names a contact, searches by name, and deletes a conversation', async () => {
    await ok('messages.markRead', { teamId, agentId: AGENT, phone: '+15550107777' });
    await ok('messages.setName', { phone: '+15550107777', name: 'Dana Ortiz' });
    const named = await ok<MessageContactsDTO>('messages.contacts', { search: 'dana' });
    expect(named.contacts).toMatchObject([{ contact: '+15550107777', name: 'Dana Ortiz', unread: 0 }]);
    expect(events.some((e) => e.name === 'messages.changed')).toBe(true);
    await ok('messages.deleteConversation', { teamId, agentId: AGENT, phone: '+15550107777' });
    expect((await ok<MessageContactsDTO>('messages.contacts', { teamId, agentId: AGENT })).contacts).toEqual([]);
    expect(await readFile(path.join(dir, 'data', 'messages', 'sent.jsonl'), 'utf8')).not.toContain('ships today');
  });

  it('a send the CLI records in the same data folder shows up in the app', async () => {
    const log = new SendLog(path.join(dir, 'data'));
    await log.append({
      teamId,
      agentId: AGENT,
      to: '+15550108888',
      kind: 'text',
      text: 'sent from a terminal',
      via: 'cli',
      at: Date.now(),
      status: 'sent',
      messageId: 'msg_from_cli',
    });
    const ev = await waitFor(
      () => events.find((e) => e.name === 'messages.new' && e.payload.message.messageId === 'msg_from_cli'),
      10_000,
    );
    expect(ev.payload).toMatchObject({ message: { contact: '+15550108888', direction: 'out', via: 'cli' } });
  });

  it('bad input is refused at the edge and changes nothing', async () => {
    const r = await call('messages.thread', { teamId, agentId: AGENT, phone: '+15550107777', limit: 0 });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation' } });
    const bad = await call('messages.setRetention', { days: 0 });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect((await ok<MessageContactsDTO>('messages.contacts')).retentionDays).toBe(90);
  });
});
