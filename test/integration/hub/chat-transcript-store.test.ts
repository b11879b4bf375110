// The chat transcripts' Postgres adapter (app/hub/chat-transcripts.ts) against the data folder's
// (core/chat/transcript-store.ts) on real Postgres: the same turns give the same transcript and the same
// conversations (titles, previews, conversation ids, a search's match, most recent first); a conversation keeps its
// latest turns; each turn records the member who ran it; an unreadable row is dropped, not trusted.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileTranscriptStore } from '../../../src-main/core/chat/transcript-store';
import type { TurnRecord } from '../../../src-main/core/chat';
import { asMember } from '../../../src-main/app/hub/acting';
import { hubChatTranscripts } from '../../../src-main/app/hub/chat-transcripts';
import type { Member } from '../../../src-main/app/hub/members';
import { sqlRows, useHubDatabase } from './support';

let n = 0;
function turnOf(agentId: string, userId: string, message: string, reply: string, more: Partial<TurnRecord> = {}) {
  n += 1;
  return {
    turnId: `t${n}`,
    teamId: 'team-1',
    agentId,
    userId,
    message,
    reply,
    conversationId: null,
    actions: [],
    usage: { outputTokens: 3 },
    mode: 'stream',
    startedAt: 1_000 * n,
    endedAt: 1_000 * n + 500,
    firstTokenMs: 120,
    tokensPerSec: 12.5,
    tokenCount: 3,
    stopped: false,
    error: null,
    ...more,
  } satisfies TurnRecord;
}

describe('the chat transcripts on Postgres', () => {
  const suite = useHubDatabase('cc-hub-chat-store-');

  it('gives the transcripts and conversations the data folder gives for the same turns', async () => {
    const hub = hubChatTranscripts(suite.db);
    const file = new FileTranscriptStore({ dataDir: path.join(suite.dir, 'same') });
    const turns = [
      turnOf('ag-same', 'me', 'Where is my parcel?', 'It left the depot.'),
      turnOf('ag-same', 'customer-7', 'Hi, I want a refund', 'Sure: which **order**?\nThe number, please.', {
        conversationId: 'conv-1',
      }),
      turnOf('ag-same', 'me', 'And when does it arrive?', '', { stopped: true }),
      turnOf('ag-same', 'customer-7', 'Order 100% _5_', 'Refund done.', { conversationId: null }),
      turnOf('ag-other', 'me', 'Not this agent', 'No.'),
    ];
    for (const t of turns) {
      await hub.append(t);
      await file.append(t);
    }
    for (const userId of ['me', 'customer-7', 'nobody'])
      expect(await hub.list('ag-same', userId)).toEqual(await file.list('ag-same', userId));

    const all = await hub.conversations('ag-same');
    expect(all).toEqual(await file.conversations('ag-same'));
    expect(all.map((c) => [c.userId, c.turns, c.conversationId, c.title, c.preview])).toEqual([
      ['customer-7', 2, 'conv-1', 'Hi, I want a refund', 'Refund done.'],
      ['me', 2, null, 'Where is my parcel?', 'And when does it arrive?'],
    ]);
    // A search: case-insensitive over messages and replies, the words around the first match; LIKE's own
    // characters are plain text.
    for (const text of ['DEPOT', 'order', '100% _5_', '%', '_', 'nothing like it', '  '])
      expect(await hub.conversations('ag-same', text), text).toEqual(await file.conversations('ag-same', text));
    expect((await hub.conversations('ag-same', '100%')).map((c) => c.userId)).toEqual(['customer-7']);
    expect(await hub.conversations('ag-none')).toEqual([]);

    await hub.clear('ag-same', 'me');
    await file.clear('ag-same', 'me');
    expect(await hub.list('ag-same', 'me')).toEqual([]);
    expect(await hub.conversations('ag-same')).toEqual(await file.conversations('ag-same'));
    expect(await hub.list('ag-other', 'me')).toHaveLength(1);
  });

  it("keeps a conversation's latest turns, as the data folder's bound does", async () => {
    const hub = hubChatTranscripts(suite.db, { maxTurns: 3 });
    const file = new FileTranscriptStore({ dataDir: path.join(suite.dir, 'bound'), maxTurns: 3 });
    const turns = Array.from({ length: 5 }, (_, i) => turnOf('ag-bound', 'me', `message ${i}`, `reply ${i}`));
    for (const t of turns) {
      await hub.append(t);
      await file.append(t);
    }
    expect((await hub.list('ag-bound', 'me')).map((t) => t.message)).toEqual(['message 2', 'message 3', 'message 4']);
    expect(await hub.list('ag-bound', 'me')).toEqual(await file.list('ag-bound', 'me'));
    expect(await hub.conversations('ag-bound')).toEqual(await file.conversations('ag-bound'));
    expect(
      await sqlRows(suite.server.url, 'select 1 from hub_chat_transcripts where agent_id = $1', ['ag-bound']),
    ).toHaveLength(3);
  });

  it('records the member who ran each turn; none outside a member request', async () => {
    const hub = hubChatTranscripts(suite.db);
    const dev: Member = { name: 'dev', role: 'developer', createdAt: 0 };
    const mine = turnOf('ag-member', 'me', 'mine', 'yes');
    const theirs = turnOf('ag-member', 'me', 'no one', 'yes');
    await asMember(dev, () => hub.append(mine));
    await hub.append(theirs);
    // A turn stored twice (a retried write) is kept once.
    await asMember(dev, () => hub.append(mine));
    const rows = await sqlRows<{ turn_id: string; member: string | null }>(
      suite.server.url,
      'select turn_id, member from hub_chat_transcripts where agent_id = $1 order by id',
      ['ag-member'],
    );
    expect(rows).toEqual([
      { turn_id: mine.turnId, member: 'dev' },
      { turn_id: theirs.turnId, member: null },
    ]);
  });

  it('drops a row that is not a turn, and reads the rest', async () => {
    const hub = hubChatTranscripts(suite.db);
    const good = turnOf('ag-bad', 'me', 'readable', 'yes');
    await hub.append(good);
    await sqlRows(
      suite.server.url,
      `insert into hub_chat_transcripts (agent_id, user_id, turn_id, team_id, turn)
       values ('ag-bad', 'me', 'broken', 'team-1', '{"turnId": "broken"}')`,
    );
    expect(await hub.list('ag-bad', 'me')).toEqual([good]);
    // The conversation's last row is the broken one: it is summarised from the turns that are readable.
    expect(await hub.conversations('ag-bad')).toMatchObject([{ userId: 'me', turns: 1, title: 'readable' }]);
  });
});
