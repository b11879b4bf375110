// Who did what on a team hub, on real Postgres: a send keeps the member who sent it (the thread's row, the
// CLI's thread lines and JSON), a registration the member who made it (the history, `webhook history`), and a
// deletion is listed in the team's activity with the member and how much went — never the text deleted or the
// contact's number, which appear nowhere in hub_audit. hub.activity pages newest first; `hub activity` prints it.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubActivityDTO, MessageThreadDTO, WebhookHistoryDTO } from '../../../src-shared/contract';
import type { Emulator } from '../../../src-main/emulator';
import { runCli } from '../../helpers/cli';
import { DEMO_KEY, startTestEmulator, waitFor } from '../../helpers/emulator';
import type { Spawned } from '../../helpers/spawn-cli';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, inboundBody, postHook, sqlRows, startHubReplica, stopAll, teamWithHook } from './support';

const AGENT = 'agent-connected';
const PHONE = '15550107788';
const PUBLIC_URL = 'https://hub.example.test';
const SECRET_KEY = randomBytes(32).toString('base64');
/** Words planted in the conversation that is deleted: after the deletion, nowhere in the activity. */
const PLANTED = `zebra-${randomUUID().slice(0, 8)}`;

describe('attribution on the hub', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  let origin: string;
  let teamId: string;
  let secret: string;
  const tokens: Record<string, string> = {};
  const replicas: Spawned[] = [];

  const call = <T = unknown>(member: string, name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(origin, tokens[member]!, name, body);
  /** A teammate's laptop: the hub in the environment, an empty config folder of its own. */
  const client = (args: string[], member: string) =>
    runCli(args, {
      configDir: path.join(dir, `laptop-${member}`),
      env: { CHANNEL_HUB_URL: origin, CHANNEL_HUB_TOKEN: tokens[member]! },
    });
  const thread = () => call<MessageThreadDTO>('vic', 'messages.thread', { teamId, agentId: AGENT, phone: PHONE });

  beforeAll(async () => {
    [db, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-attribution-'));
    for (const [name, role] of [
      ['ada', 'admin'],
      ['bob', 'developer'],
      ['carol', 'admin'],
      ['vic', 'viewer'],
    ] as const)
      tokens[name] = await addMember(db.url, name, role);
    const r = await startHubReplica({
      databaseUrl: db.url,
      secretKey: SECRET_KEY,
      dir,
      name: 'a',
      publicUrl: PUBLIC_URL,
    });
    replicas.push(r.proc);
    origin = r.origin;
    ({ teamId, secret } = await teamWithHook(origin, tokens.ada!, {
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agentId: AGENT,
      publicUrl: PUBLIC_URL,
    }));
  }, 180_000);

  afterAll(async () => {
    await stopAll(replicas, 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a registration says who made it: the history and webhook history', async () => {
    const history = await call<WebhookHistoryDTO>('vic', 'webhook.history', { teamId, agentId: AGENT });
    expect(history.entries.map((e) => [e.source, e.registeredBy])).toEqual([['hub', 'ada']]);

    const cli = await client(['webhook', 'history', '--team', 'Support', '--agent', AGENT], 'vic');
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('(hub, registered by ada)');
    const json = await client(['webhook', 'history', '--team', 'Support', '--agent', AGENT, '--json'], 'vic');
    expect(json.code, json.stderr).toBe(0);
    expect((json.json()[0] as unknown as WebhookHistoryDTO).entries[0]).toMatchObject({ registeredBy: 'ada' });
  }, 60_000);

  it('a send keeps the member who sent it: the thread, messages --with and its JSON', async () => {
    await call('bob', 'messages.send', { teamId, agentId: AGENT, to: `+${PHONE}`, text: `from bob ${PLANTED}` });
    await call('ada', 'send.message', { teamId, agentId: AGENT, to: `+${PHONE}`, text: `from ada ${PLANTED}` });
    // The contact wrote too: an inbound message has no sender among the members.
    // As the service does, the delivery is sent again while the hub answers 503 (its receiver starting).
    const body = inboundBody(`wamid.${randomUUID()}`, `hi ${PLANTED}`, PHONE);
    await waitFor(
      async () => {
        const res = await postHook(origin, AGENT, secret, body);
        await res.arrayBuffer();
        if (res.status !== 503) expect(res.status).toBe(200);
        return res.status === 200;
      },
      20_000,
      'the delivery taken',
    );

    const t = await waitFor(async () => {
      const got = await thread();
      return got.messages.length === 3 ? got : null;
    }, 20_000);
    const by = t.messages.map((m) => [m.direction, m.text.split(' ')[0], m.sentBy]);
    expect(by).toEqual(
      expect.arrayContaining([
        ['out', 'from', 'bob'],
        ['out', 'from', 'ada'],
        ['in', 'hi', undefined],
      ]),
    );

    const lines = await client(['messages', '--team', 'Support', '--agent', AGENT, '--with', PHONE], 'vic');
    expect(lines.code, lines.stderr).toBe(0);
    const out = lines.stdout.split('\n');
    expect(out.find((l) => l.includes('from bob'))).toContain('Sent by bob');
    expect(out.find((l) => l.includes('from ada'))).toContain('Sent by ada');
    expect(out.find((l) => l.includes(`hi ${PLANTED}`))).not.toContain('Sent by');

    const json = await client(['messages', '--team', 'Support', '--agent', AGENT, '--with', PHONE, '--json'], 'vic');
    expect(json.code, json.stderr).toBe(0);
    expect(json.json().map((m) => m.sentBy ?? null)).toEqual(
      expect.arrayContaining(['bob', 'ada', null]) as unknown as Array<string | null>,
    );
  }, 60_000);

  it('a deletion is listed with the member and how much went, never the text or the number', async () => {
    await call('carol', 'messages.deleteConversation', { teamId, agentId: AGENT, phone: PHONE });
    expect((await thread()).messages).toEqual([]);

    const page = await call<HubActivityDTO>('vic', 'hub.activity', {});
    const rows = page.entries.map((e) => [e.member, e.action, e.subject]);
    // Newest first; the reveal is the hub's own record; member add by the operator (null).
    expect(rows.slice(0, 5)).toEqual([
      ['carol', 'messages.deleteConversation', `agent ${AGENT}: 3 messages`],
      ['ada', 'send.message', `agent ${AGENT}`],
      ['bob', 'messages.send', `agent ${AGENT}`],
      ['ada', 'webhook.secretRevealed', `Support, agent ${AGENT}`],
      ['ada', 'webhook.register', `agent ${AGENT}`],
    ]);
    expect(rows).toContainEqual([null, 'member.add', 'carol (admin)']);
    // Each request is recorded once: the attributed ones by themselves, not also by the server before them.
    expect(rows.filter((r) => r[1] === 'messages.deleteConversation')).toHaveLength(1);

    // A deletion deletes: neither the text nor the contact's number is kept in the audit.
    const audit = JSON.stringify(await sqlRows(db.url, 'select * from hub_audit'));
    expect(audit).not.toContain(PLANTED);
    expect(audit).not.toContain(PHONE);
    expect(audit).not.toContain(PHONE.slice(-7));

    // Pages: one at a time, each `next` the cursor of the following.
    const first = await call<HubActivityDTO>('vic', 'hub.activity', { limit: 1 });
    expect(first.entries.map((e) => e.action)).toEqual(['messages.deleteConversation']);
    expect(first.next).toBe(first.entries[0]!.id);
    const second = await call<HubActivityDTO>('vic', 'hub.activity', { limit: 1, before: first.next });
    expect(second.entries.map((e) => e.action)).toEqual(['send.message']);
    await expect(call('vic', 'hub.activity', { limit: 0 })).rejects.toThrow(/"kind":"validation"/);
  }, 60_000);

  it('an agent, a contact and a chat deletion are listed too, with counts', async () => {
    await call('bob', 'messages.send', { teamId, agentId: AGENT, to: `+${PHONE}`, text: `again ${PLANTED}` });
    await waitFor(async () => ((await thread()).messages.length === 1 ? true : null), 20_000);
    await call('carol', 'messages.deleteContact', { phone: PHONE });
    await call('carol', 'messages.deleteAgent', { teamId, agentId: AGENT });
    await call('carol', 'chat.deleteConversation', { teamId, agentId: AGENT, userId: PHONE });
    const page = await call<HubActivityDTO>('vic', 'hub.activity', { limit: 3 });
    expect(page.entries.map((e) => [e.member, e.action, e.subject])).toEqual([
      ['carol', 'chat.deleteConversation', `agent ${AGENT}: none was kept`],
      ['carol', 'messages.deleteAgent', `agent ${AGENT}: 0 conversations, 0 messages`],
      ['carol', 'messages.deleteContact', '1 conversation, 1 message'],
    ]);
    const audit = JSON.stringify(await sqlRows(db.url, 'select * from hub_audit'));
    expect(audit).not.toContain(PLANTED);
    expect(audit).not.toContain(PHONE);
  }, 60_000);

  it('a send that failed is listed as failed', async () => {
    await expect(
      call('bob', 'messages.send', { teamId, agentId: 'no-such-agent', to: `+${PHONE}`, text: PLANTED }),
    ).rejects.toThrow();
    const page = await call<HubActivityDTO>('vic', 'hub.activity', { limit: 1 });
    expect(page.entries.map((e) => [e.member, e.action, e.subject])).toEqual([
      ['bob', 'messages.send', expect.stringMatching(/^failed: [A-Z_]+$/)],
    ]);
  }, 60_000);

  it('hub activity prints the team activity through the hub; without a hub it says what it needs', async () => {
    const text = await client(['hub', 'activity', '--limit', '3'], 'vic');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/bob sent a message \(failed: [A-Z_]+\)/);
    expect(text.stdout).toContain(`carol deleted a chat conversation (agent ${AGENT}: none was kept)`);
    expect(text.stdout).toContain("carol deleted an agent's conversations");
    expect(text.stdout).toMatch(/older: channel-companion hub activity --before \d+/);

    const json = await client(['hub', 'activity', '--json', '--limit', '50'], 'vic');
    expect(json.code, json.stderr).toBe(0);
    const page = json.json()[0] as unknown as HubActivityDTO;
    expect(page.entries.filter((e) => e.member === 'bob').map((e) => e.action)).toEqual([
      'messages.send',
      'messages.send',
      'messages.send',
    ]);
    // Read marks and the like are recorded, not listed.
    expect(page.entries.map((e) => e.action)).not.toContain('messages.markRead');

    const none = await runCli(['hub', 'activity'], { configDir: path.join(dir, 'no-hub') });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('CHANNEL_HUB_URL');
  }, 60_000);

  it('names a team by its label, and by its id once it is removed', async () => {
    const shown = await client(['hub', 'activity', '--limit', '50'], 'vic');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`ada revealed a webhook's signing secret (Support, agent ${AGENT})`);
    expect(shown.stdout).not.toContain(teamId);

    await call('ada', 'teams.remove', { teamId });
    const page = await call<HubActivityDTO>('vic', 'hub.activity', { limit: 50 });
    expect(page.entries.find((e) => e.action === 'webhook.secretRevealed')?.subject).toBe(
      `team ${teamId}, agent ${AGENT}`,
    );
  }, 60_000);
});
