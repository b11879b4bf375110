// The hub's shared inbox through the hub itself: two `hub` processes on one real Postgres, two members. A message
// delivered at one replica is in the inbox of the other (one row, though the service's retry reached both); one
// member reading it leaves it unread for the other, on either replica, in the list, the per-agent counts and
// `messages.unread`; a deletion through one replica takes it from both and blanks its deliveries' bodies.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageUnreadDTO } from '../../../src-shared/contract';
import type { Emulator } from '../../../src-main/emulator';
import { DEMO_KEY, startTestEmulator, waitFor } from '../../helpers/emulator';
import type { Spawned } from '../../helpers/spawn-cli';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  hubCall,
  inboundBody,
  memberStream,
  postHook,
  startHubReplica,
  stopAll,
  teamWithHook,
} from './support';

const AGENT = 'agent-connected';
const PHONE = '15550102000';
const PUBLIC_URL = 'https://hub.example.test';
const SECRET_KEY = randomBytes(32).toString('base64');

describe('the hub inbox', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  const tokens: Record<string, string> = {};
  const replicas: Spawned[] = [];
  let a: string;
  let b: string;
  let teamId: string;
  let secret: string;

  const call = <T = unknown>(origin: string, member: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, tokens[member]!, name, body);

  const startReplica = async (name: string): Promise<string> => {
    const r = await startHubReplica({ databaseUrl: db.url, secretKey: SECRET_KEY, dir, name, publicUrl: PUBLIC_URL });
    replicas.push(r.proc);
    return r.origin;
  };

  const post = async (origin: string, messageId: string, text: string): Promise<number> => {
    const res = await postHook(origin, AGENT, secret, inboundBody(messageId, text, PHONE));
    await res.arrayBuffer();
    return res.status;
  };

  const contactsOf = (origin: string, member: string) =>
    call<MessageContactsDTO>(origin, member, 'messages.contacts', { teamId });
  const unreadOf = async (origin: string, member: string) => {
    const c = await contactsOf(origin, member);
    const u = await call<MessageUnreadDTO>(origin, member, 'messages.unread');
    return {
      contact: c.contacts.find((x) => x.contact.replace(/\D/g, '') === PHONE)?.unread,
      agent: c.agents.find((x) => x.agentId === AGENT)?.unread,
      total: u.total,
    };
  };

  beforeAll(async () => {
    [db, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-inbox-'));
    tokens.ada = await addMember(db.url, 'ada', 'admin');
    tokens.bob = await addMember(db.url, 'bob', 'developer');
    a = await startReplica('a');
    ({ teamId, secret } = await teamWithHook(a, tokens.ada!, {
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agentId: AGENT,
      publicUrl: PUBLIC_URL,
    }));
    b = await startReplica('b');
  }, 180_000);

  afterAll(async () => {
    await stopAll(replicas, 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  /** The `messages.unread` events a member's event stream carries. */
  const unreadEvents = async (origin: string, member: string) => {
    const stream = await memberStream(origin, tokens[member]!);
    expect(stream.status).toBe(200);
    return {
      seen: () => stream.heard.filter((e) => e.name === 'messages.unread').map((e) => e.data as MessageUnreadDTO),
      close: stream.close,
    };
  };

  it('one inbox on both replicas, and read state per member', async () => {
    const first = `wamid.${randomUUID()}`;
    const second = `wamid.${randomUUID()}`;
    expect(await post(a, first, 'through replica a')).toBe(200);
    // The service's retry of the same delivery reached the other replica.
    expect(await post(b, first, 'through replica a')).toBe(200);
    expect(await post(b, second, 'through replica b')).toBe(200);

    // Both replicas show both messages, whichever took them.
    for (const origin of [a, b])
      await waitFor(
        async () => {
          const t = await call<{ messages: Array<{ text: string }> }>(origin, 'bob', 'messages.thread', {
            teamId,
            agentId: AGENT,
            phone: PHONE,
          });
          return t.messages.map((m) => m.text).join('|') === 'through replica a|through replica b';
        },
        20_000,
        `both messages on ${origin}`,
      );
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query('select key from hub_messages where agent_id = $1 order by seq', [AGENT]);
      expect(rows.rows.map((r: { key: string }) => r.key)).toEqual([first, second]);
    } finally {
      await client.end();
    }

    // Nobody has read them.
    for (const [origin, member] of [
      [a, 'ada'],
      [b, 'bob'],
    ] as const)
      expect(await unreadOf(origin, member)).toEqual({ contact: 2, agent: 2, total: 2 });
    // Ada reads the conversation on replica a; Bob still has both unread, on either replica — and each one's event
    // stream tells them their own counts.
    const streams = { ada: await unreadEvents(a, 'ada'), bob: await unreadEvents(a, 'bob') };
    await call(a, 'ada', 'messages.markRead', { teamId, agentId: AGENT, phone: PHONE });
    await waitFor(() => streams.ada.seen().at(-1)?.total === 0, 10_000, "ada's stream told her 0 unread");
    await waitFor(() => streams.bob.seen().length > 0, 10_000, "bob's stream told of the read");
    expect(streams.bob.seen().at(-1)?.total).toBe(2);
    for (const st of Object.values(streams)) st.close();
    expect(await unreadOf(b, 'ada')).toEqual({ contact: 0, agent: 0, total: 0 });
    expect(await unreadOf(a, 'bob')).toEqual({ contact: 2, agent: 2, total: 2 });
    expect(await unreadOf(b, 'bob')).toEqual({ contact: 2, agent: 2, total: 2 });
    await call(b, 'bob', 'messages.markRead', { teamId, agentId: AGENT, phone: PHONE });
    expect(await unreadOf(a, 'bob')).toEqual({ contact: 0, agent: 0, total: 0 });

    // Deleted through one replica: gone from the inbox of both, and the deliveries' bodies blanked in the database
    // (their rows stay, as the tunnel's log keeps a deleted message's delivery with an empty body).
    await call(b, 'ada', 'messages.deleteConversation', { teamId, agentId: AGENT, phone: PHONE });
    expect((await contactsOf(a, 'bob')).contacts).toEqual([]);
    const db2 = new pg.Client({ connectionString: db.url });
    await db2.connect();
    try {
      expect((await db2.query('select count(*)::int as n from hub_messages')).rows[0].n).toBe(0);
      const bodies = await db2.query(
        "select delivery->>'bodyBase64' as body from hub_deliveries where agent_id = $1 and key = any($2)",
        [AGENT, [first, second]],
      );
      expect(bodies.rows.map((r: { body: string }) => r.body)).toEqual(['', '']);
    } finally {
      await db2.end();
    }
  }, 90_000);
});
