// What one replica runs reaches the members on the other: two `hub` processes on one Postgres, the service's
// emulator, each member's event stream attached to replica B while the request runs on replica A. A chat turn
// started through A streams its tokens to the member's stream on B, in order and once (and to no other member);
// a send's progress reaches B; a file whose delivery A received is served by B; deleting the message deletes
// the file from the database, and no replica's data folder holds its bytes.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator';
import { control, startTestEmulator } from '../../helpers/emulator';
import { filesHolding } from '../../helpers/files-holding';
import { waitFor } from '../../helpers/wait';
import { startBalancer, type TestBalancer } from './balancer';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  hubCall,
  memberStream,
  sqlRows,
  startHubReplica,
  stopAll,
  teamWithHook,
  type HeardEvent,
  type HubReplica,
} from './support';

const API_KEY = 'cross-replica-test-key-01';
const SECRET_KEY = randomBytes(32).toString('base64');
const AGENT = 'a1';
const CONTACT = '+15550103000';

/** What this file reads of an event's data. */
interface Heard extends HeardEvent {
  data: { turnId?: string; token?: string; result?: { reply: string }; clientRef?: string; phase?: string };
}

describe('the team hub: what one replica runs reaches the members on the other', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let lb: TestBalancer;
  let dir: string;
  let a: HubReplica;
  let b: HubReplica;
  let teamId: string;
  const tokens: Record<string, string> = {};
  const streams: Array<{ close(): void }> = [];

  const call = <T = unknown>(r: HubReplica, who: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(r.origin, tokens[who]!, name, body);
  const stream = async (r: HubReplica, who: string) => {
    const s = await memberStream(r.origin, tokens[who]!);
    streams.push(s);
    expect(s.status).toBe(200);
    return { heard: s.heard as Heard[] };
  };

  beforeAll(async () => {
    [db, emu] = await Promise.all([
      startPostgres(),
      startTestEmulator({
        seed: {
          teams: [
            {
              id: 'hub-team',
              apiKey: API_KEY,
              agents: [{ agentId: AGENT, state: 'connected' as const, phone: '15550300000' }],
            },
          ],
        },
      }),
    ]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-cross-'));
    for (const [name, role] of [
      ['ada', 'admin'],
      ['dev', 'developer'],
      ['eve', 'developer'],
    ] as const)
      tokens[name] = await addMember(db.url, name, role);
    // The service's deliveries go to replica A alone (the balancer's only replica).
    lb = await startBalancer([]);
    const start = (name: string) =>
      startHubReplica({ databaseUrl: db.url, secretKey: SECRET_KEY, dir, name, publicUrl: lb.origin, readyMs: 90_000 });
    [a, b] = await Promise.all([start('a'), start('b')]);
    lb.add(a.origin);
    ({ teamId } = await teamWithHook(a.origin, tokens.ada!, {
      baseUrl: emu.baseUrl,
      apiKey: API_KEY,
      agentId: AGENT,
      publicUrl: lb.origin,
    }));
  }, 180_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await stopAll(
      [a?.proc, b?.proc].filter((p) => p !== undefined),
      'SIGTERM',
    );
    await Promise.allSettled([lb?.close(), emu?.close()]);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("a chat turn through A streams its tokens to the member's stream on B, in order, once", async () => {
    // A reply of ~12 kB: its chat.done is larger than one notification (sent in parts, put together on B).
    const tokens = Array.from({ length: 120 }, (_, i) => `t${i}${'·'.repeat(50)} `);
    await control(emu, 'POST', `/agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 2 });
    const [devOnB, eveOnB, devOnA] = await Promise.all([stream(b, 'dev'), stream(b, 'eve'), stream(a, 'dev')]);
    const userId = (await call<{ installId: string }>(a, 'dev', 'settings.get')).installId;
    const { turnId } = await call<{ turnId: string }>(a, 'dev', 'chat.startTurn', {
      teamId,
      agentId: AGENT,
      userId,
      message: 'hello',
    });
    const ofTurn = (s: { heard: Heard[] }) =>
      s.heard.filter((h) => h.name.startsWith('chat.') && h.data.turnId === turnId);
    await waitFor(() => ofTurn(devOnB).some((h) => h.name === 'chat.done'), 30_000, 'chat.done on B');
    await waitFor(() => ofTurn(devOnA).some((h) => h.name === 'chat.done'), 10_000, 'chat.done on A');
    for (const s of [devOnB, devOnA]) {
      const heard = ofTurn(s);
      // The tokens in order and none twice (joined: B's come coalesced), then one end, last.
      expect(
        heard
          .filter((h) => h.name === 'chat.token')
          .map((h) => h.data.token)
          .join(''),
      ).toBe(tokens.join(''));
      expect(heard.filter((h) => h.name !== 'chat.token').map((h) => h.name)).toEqual(['chat.done']);
      expect(heard.at(-1)!.name).toBe('chat.done');
      expect(heard.at(-1)!.data.result?.reply).toBe(tokens.join(''));
    }
    // Fewer events than tokens on B: coalesced per turn.
    expect(ofTurn(devOnB).length).toBeLessThan(tokens.length);
    // Another member's stream is not told of dev's turn. Eve's own turn, announced by A after dev's, reaches
    // her stream on B: dev's would have come before it. Dev's streams are not told of hers.
    const eve = await call<{ turnId: string }>(a, 'eve', 'chat.startTurn', {
      teamId,
      agentId: AGENT,
      userId,
      message: 'hello from eve',
    });
    await waitFor(
      () => eveOnB.heard.some((h) => h.name === 'chat.done' && h.data.turnId === eve.turnId),
      30_000,
      "eve's chat.done on B",
    );
    expect(ofTurn(eveOnB)).toEqual([]);
    for (const s of [devOnA, devOnB]) expect(s.heard.some((h) => h.data.turnId === eve.turnId)).toBe(false);
  }, 60_000);

  it("a send's progress through A reaches the member's stream on B", async () => {
    const devOnB = await stream(b, 'dev');
    // The service answers the send 503 once: the send is retried, and says so.
    await control(emu, 'POST', '/faults', {
      kind: '503',
      count: 1,
      pathPrefix: `/api/v1/agents/${AGENT}/whatsapp/messages`,
    });
    const clientRef = `ref-${randomBytes(4).toString('hex')}`;
    await call(a, 'dev', 'send.message', { teamId, agentId: AGENT, to: CONTACT, text: 'hi', clientRef });
    const progress = await waitFor(
      () => devOnB.heard.find((h) => h.name === 'send.progress' && h.data.clientRef === clientRef),
      10_000,
      'send.progress on B',
    );
    expect(progress.data.phase).toBe('retrying');
  }, 30_000);

  it('a file whose delivery A received is served by B, and leaves everywhere with its message', async () => {
    const { messageId } = await control<{ messageId: string }>(emu, 'POST', `/agents/${AGENT}/inbound`, {
      from: CONTACT,
      type: 'document',
      caption: 'the contract',
    });
    const delivered = await waitFor(
      async () =>
        (
          await sqlRows<{ delivery_id: string; replica: string }>(
            db.url,
            'select delivery_id, replica from hub_deliveries where key = $1',
            [messageId],
          )
        )[0],
      15_000,
      'the delivery committed',
    );
    expect(delivered.replica).toBe(a.replica);
    const file = await call<{ filename: string; mimeType: string; dataBase64: string }>(b, 'dev', 'tunnel.media', {
      id: delivered.delivery_id,
    });
    const bytes = Buffer.from(file.dataBase64, 'base64');
    expect(file.mimeType).toBe('application/pdf');
    expect(bytes.toString('utf8')).toContain(`% message: ${messageId}`);
    // A answers the same file, from the database; the message's file too (the inbox is every replica's).
    const fromA = await call<{ dataBase64: string }>(a, 'dev', 'tunnel.media', { id: delivered.delivery_id });
    expect(fromA.dataBase64).toBe(file.dataBase64);
    await waitFor(
      async () =>
        (
          await call<{ messages: Array<{ key: string }> }>(b, 'dev', 'messages.thread', {
            teamId,
            agentId: AGENT,
            phone: CONTACT,
          })
        ).messages.some((m) => m.key === messageId),
      15_000,
      'the message in the inbox',
    );
    const saved = await call<{ saved: string; file: { dataBase64: string } }>(a, 'ada', 'messages.saveMedia', {
      teamId,
      agentId: AGENT,
      messageKey: messageId,
    });
    expect(saved.file.dataBase64).toBe(file.dataBase64);
    expect(await sqlRows(db.url, 'select 1 from hub_media where message_id = $1', [messageId])).toHaveLength(1);

    // Deleted through B: the file's row is gone, neither replica answers it, no data folder holds its bytes.
    await call(b, 'ada', 'messages.deleteConversation', { teamId, agentId: AGENT, phone: CONTACT });
    expect(await sqlRows(db.url, 'select 1 from hub_media where message_id = $1', [messageId])).toHaveLength(0);
    for (const r of [a, b]) {
      await expect(call(r, 'dev', 'tunnel.media', { id: delivered.delivery_id })).rejects.toThrow(/MESSAGE_DELETED/);
      await expect(call(r, 'dev', 'messages.media', { teamId, agentId: AGENT, messageKey: messageId })).rejects.toThrow(
        /NO_MESSAGE/,
      );
    }
    expect(await sqlRows(db.url, 'select 1 from hub_media where message_id = $1', [messageId])).toHaveLength(0);
    expect(await filesHolding(dir, bytes)).toEqual([]);
  }, 60_000);
});
