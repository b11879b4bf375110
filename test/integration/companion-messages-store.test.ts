// The message database over the contract, end to end (a contact writes through the receiver):
// messages.search over every conversation with the ranges to highlight, in every written form of a
// number; messages.export; messages.deleteContact; and a deletion through the companion that leaves
// the planted text in no file of its data folder (the database and the tunnel log's segments).
import { describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageSearchDTO, MessageThreadDTO, ResultOf } from '../../src-shared/contract';

type MessageExportDTO = ResultOf<'messages.export'>;
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { filesHolding, phraseForms } from '../helpers/files-holding';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const PHRASE = 'saffron-kettle 4471';

describe('the message database over the contract', () => {
  let emu: Emulator;
  let dir: string;
  let teamId = '';
  const { call, ok } = companionSuite(
    'cc-messages-store-',
    { agents: [{ agentId: AGENT }], register: AGENT, companion: { startTunnel: true } },
    (s) => ({ emu, dir, teamId } = s),
  );

  const write = async (from: string, text: string, id: string) => {
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, { from, text, id });
    await waitFor(async () => {
      const t = await ok<MessageThreadDTO>('messages.thread', { teamId, agentId: AGENT, phone: from });
      return t.messages.some((m) => m.messageId === id) ? t : null;
    }, 5000);
  };

  it('searches every conversation: words and numbers in any written form, with ranges', async () => {
    await write('+15550107777', `the ${PHRASE} arrived dented`, 'wamid_s1');
    await write('+15550108888', 'a second customer', 'wamid_s2');
    for (const q of ['+1 555 010 7777', '(555) 010-7777', '15550107777']) {
      const r = await ok<MessageSearchDTO>('messages.search', { query: q });
      expect(
        r.contacts.map((h) => h.contact.contact),
        q,
      ).toEqual(['+15550107777']);
      const [a, b] = r.contacts[0]!.ranges[0]!;
      expect('+15550107777'.slice(a, b)).toBe(q.replace(/\D/g, ''));
    }
    const words = await ok<MessageSearchDTO>('messages.search', { query: 'dent', agentId: AGENT });
    expect(words.messages.map((h) => [h.message.messageId, h.field, h.ranges])).toEqual([
      ['wamid_s1', 'text', [[32, 38]]],
    ]);
    expect(words.messages[0]!.message.seq).toBeGreaterThan(0);
    const bad = await call('messages.search', { query: '   ' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });

  it('exports a conversation as JSON lines, CSV and text', async () => {
    const jsonl = await ok<MessageExportDTO>('messages.export', {
      teamId,
      agentId: AGENT,
      phone: '+15550107777',
      format: 'jsonl',
    });
    expect(jsonl.count).toBe(1);
    expect(JSON.parse(jsonl.content.trim())).toMatchObject({ text: `the ${PHRASE} arrived dented`, direction: 'in' });
    const csv = await ok<MessageExportDTO>('messages.export', {
      teamId,
      agentId: AGENT,
      phone: '+15550107777',
      format: 'csv',
    });
    expect(csv.mimeType).toBe('text/csv');
    const text = await ok<MessageExportDTO>('messages.export', {
      teamId,
      agentId: AGENT,
      phone: '+15550107777',
      format: 'text',
    });
    expect(text.content).toContain(`+15550107777: the ${PHRASE} arrived dented`);
  });

  it("deleting a contact's data leaves its text in no file of the data folder", async () => {
    await ok('messages.setName', { phone: '+15550107777', name: 'Saffron Customer' });
    expect((await filesHolding(dir, phraseForms(PHRASE))).length).toBeGreaterThan(0);
    const r = await ok<{ removed: number }>('messages.deleteContact', { phone: '+1 555 010 7777' });
    expect(r.removed).toBe(1);
    expect(await filesHolding(dir, phraseForms(PHRASE))).toEqual([]);
    expect(await filesHolding(dir, phraseForms('Saffron Customer'))).toEqual([]);
    const left = await ok<MessageContactsDTO>('messages.contacts', { teamId });
    expect(left.contacts.map((c) => c.contact)).toEqual(['+15550108888']);
  });
});
