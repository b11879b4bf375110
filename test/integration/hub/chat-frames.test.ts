// chat.frames (a chat turn's stream frames as received) answers the same on every replica: two `hub` processes on
// one Postgres and the service's emulator; a turn runs through replica A while its frames are asked of replica B —
// while it streams, and once it is done (the same frames, the same count left out of a long stream). Only the
// turns in flight and each chat's last turn are kept in the database, and deleting the conversation deletes them
// (refused on every replica while a reply is coming in it).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatFramesDTO } from '../../../src-shared/contract';
import type { Emulator } from '../../../src-main/emulator';
import { control, startTestEmulator } from '../../helpers/emulator';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, sqlRows, startHubReplica, stopAll, type HubReplica } from './support';

const API_KEY = 'chat-frames-test-key-01';
const AGENT = 'a1';

describe('chat.frames on every replica', () => {
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
  const frames = (r: HubReplica, turnId: string) => call<ChatFramesDTO>(r, 'vic', 'chat.frames', { turnId });
  /** Starts a turn through A, the service streaming `words` as tokens `delayMs` apart. */
  const turnThroughA = async (words: string[], delayMs: number): Promise<string> => {
    await control(emu, 'POST', `/agents/${AGENT}/chat-script`, { tokens: words, tokenDelayMs: delayMs });
    const { turnId } = await call<{ turnId: string }>(a, 'dev', 'chat.startTurn', {
      teamId,
      agentId: AGENT,
      userId,
      message: 'hello',
    });
    return turnId;
  };
  const ended = async (r: HubReplica, turnId: string) =>
    waitFor(
      async () => {
        const f = await frames(r, turnId);
        return f.known && !f.live ? f : null;
      },
      30_000,
      `the turn's end on ${r.name}`,
    );

  beforeAll(async () => {
    [db, emu] = await Promise.all([
      startPostgres(),
      startTestEmulator({
        seed: {
          teams: [{ id: 'hub-team', apiKey: API_KEY, agents: [{ agentId: AGENT, state: 'connected' as const }] }],
        },
      }),
    ]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-chat-frames-'));
    for (const [name, role] of [
      ['ada', 'admin'],
      ['dev', 'developer'],
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
    userId = (await call<{ installId: string }>(a, 'dev', 'settings.get')).installId;
  }, 180_000);

  afterAll(async () => {
    await stopAll([a?.proc, b?.proc].filter((p) => p !== undefined));
    await Promise.allSettled([emu?.close()]);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a turn through A: B shows its frames while it streams, and the same frames as A once done', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
    const turnId = await turnThroughA(words, 40);
    // While the turn streams, B (which does not run it) answers it as live, with frames.
    const live = await waitFor(
      async () => {
        const f = await frames(b, turnId);
        return f.known && f.live && f.frames.length > 0 ? f : null;
      },
      20_000,
      'live frames on B',
    );
    expect(live.omitted).toBe(0);
    const [onA, onB] = [await ended(a, turnId), await ended(b, turnId)];
    expect(onB).toEqual(onA);
    expect(onB.frames.map((f) => f.data).join('')).toContain('w59');
  }, 60_000);

  it('a long stream: B leaves out the same middle as A, and keeps the same first and latest frames', async () => {
    const words = Array.from({ length: 2_600 }, (_, i) => `x${i} `);
    const turnId = await turnThroughA(words, 0);
    const onA = await ended(a, turnId);
    const onB = await ended(b, turnId);
    expect(onA.omitted).toBeGreaterThan(0);
    expect(onB).toEqual(onA);
    // The database keeps no row of the middle left out (a row is the frames one write added).
    const total = onA.frames.length + onA.omitted;
    const rows = await sqlRows<{ seq: number; n: number }>(
      db.url,
      'select seq, jsonb_array_length(frames) as n from hub_chat_frames where turn_id = $1 order by seq',
      [turnId],
    );
    expect(rows.filter((r) => r.seq >= 200 && r.seq + r.n <= total - 1_800)).toEqual([]);
    expect(rows.reduce((n, r) => n + r.n, 0)).toBeLessThan(total);
  }, 60_000);

  it('a reply coming in through A: its conversation is not deleted through B until the turn ends', async () => {
    const turnId = await turnThroughA(
      Array.from({ length: 40 }, (_, i) => `z${i} `),
      50,
    );
    await waitFor(
      async () => {
        const f = await frames(b, turnId);
        return f.known && f.live ? f : null;
      },
      20_000,
      'the turn live on B',
    );
    await expect(call(b, 'ada', 'chat.deleteConversation', { teamId, agentId: AGENT, userId })).rejects.toThrow(
      /TURN_RUNNING/,
    );
    await ended(b, turnId);
    await expect(call(b, 'ada', 'chat.deleteConversation', { teamId, agentId: AGENT, userId })).resolves.toEqual({
      deleted: true,
    });
  }, 60_000);

  it("only each chat's last turn is kept; deleting the conversation deletes it", async () => {
    const first = await turnThroughA(['one ', 'two '], 5);
    await ended(b, first);
    const second = await turnThroughA(['three ', 'four '], 5);
    await ended(b, second);
    const kept = await sqlRows<{ turn_id: string }>(
      db.url,
      'select turn_id from hub_chat_turns where agent_id = $1 and user_id = $2',
      [AGENT, userId],
    );
    expect(kept.map((r) => r.turn_id)).toEqual([second]);
    expect(await sqlRows(db.url, 'select 1 from hub_chat_frames where turn_id = $1', [first])).toEqual([]);

    await call(b, 'ada', 'chat.deleteConversation', { teamId, agentId: AGENT, userId });
    expect(await sqlRows(db.url, 'select 1 from hub_chat_turns where agent_id = $1', [AGENT])).toEqual([]);
    expect(await sqlRows(db.url, 'select 1 from hub_chat_frames')).toEqual([]);
    expect(await frames(b, second)).toEqual({ frames: [], omitted: 0, live: false, known: false });
  }, 60_000);
});
