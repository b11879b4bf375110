// A team on a hub of two replicas (two `hub` processes on one real Postgres, their own data folders, the same
// database and secret key, polling every second) and the service's emulator: the team and its agents added
// through the hub by its admin, two on-call members, alice and bob. The browser host (`serve`) is connected to
// replica A as alice through Settings → Team hub. Without a reload, alice's screens then show:
// - an incident (an agent unlinked at the emulator) acknowledged by bob through replica B: "Acknowledged by bob";
// - a message the service delivered (signed) to replica B's /hooks/<agent>: in alice's inbox, unread for her;
//   bob reading it through replica B leaves it unread for alice; alice opening it reads it for her;
// - bob's reply through replica B: "Sent by bob" under it in her thread, and in Settings → Team hub's activity.
// The Agents, Alerts and Messages screens shot at 1280×800 and 1024×700; axe finds nothing serious, light and dark.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startPostgres, type TestPostgres } from '../integration/hub/postgres';
import { hubCall } from '../helpers/hub-call';
import { addMembers, deliverText, startHub } from './support/hub';
import { control, open, shotsAndAxe, useServe } from './support/kit';
import { makeServeHome, type RunningServe, type ServeHome } from './support/serve';
const PUBLIC_URL = 'https://hub.example.test';
const TEAM_KEY = 'hub-team-key-0123456789';
/** The team's agents at the emulator: one whose messages come in, one that gets unlinked. */
const SUPPORT = { agentId: 'hub-support', label: 'Hub support' };
const SALES = { agentId: 'hub-sales', label: 'Hub sales' };
const CUSTOMER = '15550102000';

interface Incident {
  id: string;
  agentId: string;
  acknowledgedAt: number | null;
  acknowledgedBy?: string | null;
}

interface Contacts {
  contacts: { agentId: string; contact: string; unread: number }[];
}

test.describe.serial('a team on a hub of two replicas', () => {
  const suite = useServe();
  let db: TestPostgres;
  const homes: ServeHome[] = [];
  const replicas: RunningServe[] = [];
  let a: string;
  let b: string;
  let teamId: string;
  let secret: string;
  let tokens: Record<string, string> = {};

  /** A request of the contract over HTTP, as a member, to one replica. */
  const call = <T = unknown>(origin: string, member: string, name: string, args: unknown = {}): Promise<T> =>
    hubCall<T>(origin, tokens[member]!, name, args);

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    db = await startPostgres();
    homes.push(makeServeHome(), makeServeHome());
    const secrets = {
      DATABASE_URL: db.url,
      CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    const env = { ...homes[0]!.env, ...secrets };
    tokens = addMembers(env, [
      ['ada', 'admin'],
      ['alice', 'on-call'],
      ['bob', 'on-call'],
    ]);

    // The team at the service: two connected agents.
    await control(suite, 'teams', { id: 'hub-team', name: 'Hub team', apiKey: TEAM_KEY });
    for (const [agent, phone] of [
      [SUPPORT, '15550100011'],
      [SALES, '15550100012'],
    ] as const)
      await control(suite, 'teams/hub-team/agents', { ...agent, state: 'connected', phone });

    const [started1, started2] = await Promise.all(
      homes.map(async (home) => {
        const { hub, origin } = await startHub(
          home,
          { ...home.env, ...secrets },
          { publicUrl: PUBLIC_URL, pollSec: 1, timeoutMs: 60_000 },
        );
        replicas.push(hub);
        return origin;
      }),
    );
    a = started1!;
    b = started2!;

    // The team and its agents, added through the hub by its admin; the support agent's webhook points at the hub.
    teamId = (
      await call<{ teamId: string }>(a, 'ada', 'teams.add', {
        label: 'Hub team',
        baseUrl: suite.emulator.baseUrl,
        apiKey: TEAM_KEY,
        agents: [SUPPORT],
      })
    ).teamId;
    // Replica B hears of the team by the database's NOTIFY (within a second), then takes the second agent.
    await expect
      .poll(async () => (await call<{ teamId: string }[]>(b, 'ada', 'teams.list')).map((t) => t.teamId))
      .toContain(teamId);
    await call(b, 'ada', 'agents.add', { teamId, ...SALES });
    await call(b, 'ada', 'webhook.register', {
      teamId,
      agentId: SUPPORT.agentId,
      publicUrl: `${PUBLIC_URL}/hooks/${SUPPORT.agentId}`,
    });
    secret = (await call<{ secret: string }>(a, 'ada', 'webhook.revealSecret', { teamId, agentId: SUPPORT.agentId }))
      .secret;
  });

  test.afterAll(async () => {
    const codes = await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
    for (const h of homes) h.remove();
    expect(codes, 'the replicas stop cleanly on SIGTERM').toEqual(replicas.map(() => 0));
  });

  test('alice, connected to replica A, sees bob’s acknowledgement and a message that came through replica B', async ({
    page,
  }, testInfo) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Connect through Settings → Team hub, as alice, to replica A.
    await open(page, suite, '#/settings');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Team hub' }) });
    await card.getByLabel('Hub address').fill(a);
    await card.getByLabel('Member token').fill(tokens.alice!);
    await card.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByTestId('hub-indicator')).toHaveText(`Connected to hub ${a} as alice (on-call)`);
    await expect(page.getByRole('article', { name: 'Team Hub team' })).toBeVisible();

    // Agents: the hub's team, both agents, the one added through replica B too.
    await page.evaluate(() => (window.location.hash = '#/'));
    await expect(page.getByRole('heading', { level: 2, name: 'Agents' })).toBeVisible();
    for (const agent of [SUPPORT, SALES])
      await expect(page.getByRole('link', { name: agent.label, exact: true })).toBeVisible();
    await expect(page.getByText('2 agents:')).toBeVisible();
    await shotsAndAxe(page, testInfo, 'agents');

    // (1) An agent unlinked at the service: an incident, on alice's Alerts screen.
    await page.evaluate(() => (window.location.hash = '#/alerts'));
    await expect(page.getByRole('heading', { level: 2, name: 'Alerts' })).toBeVisible();
    await control(suite, `agents/${SALES.agentId}/unlink`);
    const row = page.locator('ul.incidents li.incident').filter({ hasText: SALES.label });
    await expect(row).toHaveCount(1, { timeout: 15_000 });
    await expect(row).toContainText('not acknowledged');

    // Bob acknowledges it through replica B; alice's screen says so, with his name, without a reload.
    let incident: Incident | undefined;
    await expect
      .poll(
        async () =>
          (incident = (await call<Incident[]>(b, 'bob', 'alerts.list')).find((i) => i.agentId === SALES.agentId)),
        { timeout: 10_000 },
      )
      .toBeDefined();
    await call(b, 'bob', 'alerts.acknowledge', { incidentId: incident!.id });
    await expect(row).toContainText('Acknowledged by bob', { timeout: 10_000 });
    await expect(row.getByRole('button', { name: /^Acknowledge/ })).toHaveCount(0);
    await shotsAndAxe(page, testInfo, 'alerts');

    // (2) A message the service delivers to replica B's hook: in alice's inbox on replica A, unread for her.
    await page.evaluate(() => (window.location.hash = '#/messages'));
    await expect(page.getByRole('heading', { level: 2, name: 'Messages' })).toBeVisible();
    const text = `Hello through replica B ${randomBytes(3).toString('hex')}`;
    await deliverText(b, SUPPORT.agentId, secret, CUSTOMER, text);
    const contact = page.locator('a.messages-contact').filter({ hasText: text });
    await expect(contact).toBeVisible({ timeout: 15_000 });
    await expect(contact.getByLabel('1 unread')).toBeVisible();
    await shotsAndAxe(page, testInfo, 'messages');

    // Read state per member: bob reads it through replica B; it stays unread for alice.
    const unreadFor = async (origin: string, member: string): Promise<number | undefined> =>
      (await call<Contacts>(origin, member, 'messages.contacts', { teamId, agentId: SUPPORT.agentId })).contacts.find(
        (c) => c.contact.replace(/\D/g, '') === CUSTOMER,
      )?.unread;
    await call(b, 'bob', 'messages.markRead', { teamId, agentId: SUPPORT.agentId, phone: CUSTOMER });
    expect(await unreadFor(b, 'bob')).toBe(0);
    expect(await unreadFor(a, 'alice')).toBe(1);
    await page.reload();
    await expect(contact.getByLabel('1 unread')).toBeVisible({ timeout: 15_000 });

    // Alice opens it: read for her too.
    await contact.click();
    await expect(page.getByText(text).last()).toBeVisible();
    await expect.poll(() => unreadFor(a, 'alice'), { timeout: 10_000 }).toBe(0);

    // (3) Who did what: bob replies through replica B; alice's thread says so, and Settings → Team hub lists it.
    const reply = `Reply from bob ${randomBytes(3).toString('hex')}`;
    await call(b, 'bob', 'messages.send', { teamId, agentId: SUPPORT.agentId, to: `+${CUSTOMER}`, text: reply });
    const bubble = page.locator('li.messages-bubble.out').filter({ hasText: reply });
    await expect(bubble).toContainText('Sent by bob', { timeout: 15_000 });
    await page.evaluate(() => (window.location.hash = '#/settings'));
    await expect(page.getByRole('list', { name: 'Team activity' })).toContainText('bob sent a message');
  });
});
