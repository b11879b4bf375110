// A chat's transcript and the agent's conversations answer the same on every replica: two `hub` processes on one
// Postgres and the service's emulator; a turn through replica A is read from replica B (its transcript, the
// conversation list, a search), a second turn through B comes after it on A, each turn records the member who ran
// it, another member reads the same conversation (the team's, as the service keeps it), and a deletion through B
// is gone on A and from the database.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatConversationDTO, ChatMessageDTO } from '../../../src-shared/contract';
import type { Emulator } from '../../../src-main/emulator';
import { control, startTestEmulator } from '../../helpers/emulator';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, sqlRows, startHubReplica, stopAll, type HubReplica } from './support';

const API_KEY = 'chat-transcripts-test-key-01';
const AGENT = 'a1';

describe('chat transcripts on every replica', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  let a: HubReplica;
  let b: HubReplica;
  let teamId: string;
  let userId: string;
  const tokens: Record<string, string> = {};

  const call = <T = unknown>(r: HubReplica, who: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(r.origin, tokens[who]!, name, body);
  const transcript = (r: HubReplica, who = 'vic') =>
    call<ChatMessageDTO[]>(r, who, 'chat.transcript', { teamId, agentId: AGENT, userId });
  const conversations = (r: HubReplica, text?: string) =>
    call<ChatConversationDTO[]>(r, 'vic', 'chat.conversations', { teamId, agentId: AGENT, ...(text ? { text } : {}) });
  /** A turn through `r` as `who`, the service answering `words`; resolves once its reply is in `r`'s transcript. */
  const turn = async (r: HubReplica, who: string, message: string, words: string[]): Promise<string> => {
    await control(emu, 'POST', `/agents/${AGENT}/chat-script`, { tokens: words, tokenDelayMs: 5 });
    const { turnId } = await call<{ turnId: string }>(r, who, 'chat.startTurn', {
      teamId,
      agentId: AGENT,
      userId,
      message,
    });
    await waitFor(
      async () => (await transcript(r)).some((m) => m.id === `${turnId}:agent` && m.status === 'done'),
      30_000,
      `the turn's reply on ${r.name}`,
    );
    return turnId;
  };

  beforeAll(async () => {
    [db, emu] = await Promise.all([
      startPostgres(),
      startTestEmulator({
        seed: {
          teams: [{ id: 'hub-team', apiKey: API_KEY, agents: [{ agentId: AGENT, state: 'connected' as const }] }],
        },
      }),
    ]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-chat-transcripts-'));
    for (const [name, role] of [
      ['ada', 'admin'],
      ['dev', 'developer'],
      ['dan', 'developer'],
      ['vic', 'viewer'],
    ] as const)
      tokens[name] = await addMember(db.url, name, role);
    const secretKey = randomBytes(32).toString('base64');
    const start = (name: string) => startHubReplica({ databaseUrl: db.url, secretKey, dir, name, readyMs: 90_000 });
    [a, b] = await Promise.all([start('a'), start('b')]);
    ({ teamId } = await call<{ teamId: string }>(a, 'ada', 'teams.add', {
      label: 'Support',
      baseUrl: emu.baseUrl,
      apiKey: API_KEY,
      agents: [{ agentId: AGENT }],
    }));
    // Every member's own conversation on a hub: the hub's install id (the same on both replicas).
    userId = (await call<{ installId: string }>(a, 'dev', 'settings.get')).installId;
    expect((await call<{ installId: string }>(b, 'dan', 'settings.get')).installId).toBe(userId);
  }, 180_000);

  afterAll(async () => {
    await stopAll([a?.proc, b?.proc].filter((p) => p !== undefined));
    await Promise.allSettled([emu?.close()]);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("a turn through A: B answers its transcript and the agent's conversations as A does", async () => {
    const turnId = await turn(a, 'dev', 'Where is my parcel?', ['It ', 'left ', 'the ', 'depot.']);
    const onA = await transcript(a);
    expect(onA.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Where is my parcel?'],
      ['agent', 'It left the depot.'],
    ]);
    expect(await transcript(b)).toEqual(onA);

    const listA = await conversations(a);
    expect(listA).toHaveLength(1);
    expect(listA[0]).toMatchObject({ userId, turns: 1, title: 'Where is my parcel?', preview: 'It left the depot.' });
    expect(await conversations(b)).toEqual(listA);
    // A search through B finds it by the reply's words, and nothing for words it does not have.
    expect((await conversations(b, 'DEPOT'))[0]).toMatchObject({ userId, match: 'It left the depot.' });
    expect(await conversations(b, 'warehouse')).toEqual([]);

    const rows = await sqlRows<{ turn_id: string; member: string }>(
      db.url,
      'select turn_id, member from hub_chat_transcripts where agent_id = $1',
      [AGENT],
    );
    expect(rows).toEqual([{ turn_id: turnId, member: 'dev' }]);
  }, 60_000);

  it('a second turn through B comes after the first on A; another member reads the same conversation', async () => {
    const first = (await transcript(a)).map((m) => m.id);
    const second = await turn(b, 'dan', 'And when will it arrive?', ['Tomorrow ', 'morning.']);
    const onA = await transcript(a);
    expect(onA.map((m) => m.id)).toEqual([...first, `${second}:user`, `${second}:agent`]);
    expect(onA.at(-1)).toMatchObject({ role: 'agent', text: 'Tomorrow morning.', status: 'done' });
    expect(await transcript(b)).toEqual(onA);
    // The team's conversation, as the service keeps one per user_id: every member reads it, on either replica.
    expect(await transcript(a, 'ada')).toEqual(onA);
    expect(await transcript(b, 'dev')).toEqual(onA);

    const listA = await conversations(a);
    expect(listA).toEqual(await conversations(b));
    expect(listA[0]).toMatchObject({
      userId,
      turns: 2,
      title: 'Where is my parcel?',
      preview: 'Tomorrow morning.',
    });
    const members = await sqlRows<{ member: string }>(
      db.url,
      'select member from hub_chat_transcripts where agent_id = $1 order by id',
      [AGENT],
    );
    expect(members.map((r) => r.member)).toEqual(['dev', 'dan']);
  }, 60_000);

  it('a deletion through B: the conversation is gone on A and from the database', async () => {
    expect(await call(b, 'ada', 'chat.deleteConversation', { teamId, agentId: AGENT, userId })).toEqual({
      deleted: true,
    });
    expect(await transcript(a)).toEqual([]);
    expect(await conversations(a)).toEqual([]);
    expect(await sqlRows(db.url, 'select 1 from hub_chat_transcripts')).toEqual([]);
    // Deleted once: asking again through A finds nothing to delete.
    expect(await call(a, 'ada', 'chat.deleteConversation', { teamId, agentId: AGENT, userId })).toEqual({
      deleted: false,
    });
  }, 60_000);
});
