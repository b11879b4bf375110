// A viewer on a team's hub, in Chromium: the browser host (`serve`) connected through Settings → Team hub to a
// real hub on a real Postgres as vera (viewer). The team, added by the hub's admin, has an open incident (an
// agent unlinked at the emulator) and a conversation (a message the service delivered, signed, to the hub's
// /hooks). Vera's screens keep every action in view but disabled, each saying why ("Your role (viewer) can't …"):
// Acknowledge on Alerts, Send on the conversation; the Tunnel screen says the hub receives the deliveries at its
// public URL and offers to point an agent's webhook at the hub (disabled for her). Each state shot at 1024×700
// and 1280×800; axe finds nothing serious, light and dark.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startPostgres, type TestPostgres } from '../integration/hub/postgres';
import { hubCall } from '../helpers/hub-call';
import { addMembers, deliverText, startHub } from './support/hub';
import { control, open, shotsAndAxe, useServe } from './support/kit';
import { makeServeHome, type RunningServe, type ServeHome } from './support/serve';
const PUBLIC_URL = 'https://hub.example.test';
const TEAM_KEY = 'hub-roles-key-0123456789';
const SUPPORT = { agentId: 'roles-support', label: 'Roles support' };
const SALES = { agentId: 'roles-sales', label: 'Roles sales' };
const CUSTOMER = '15550102000';

test.describe.serial('a viewer on a team hub', () => {
  const suite = useServe();
  let db: TestPostgres;
  let home: ServeHome;
  let hub: RunningServe;
  let origin: string;
  let secret: string;
  let tokens: Record<string, string> = {};

  /** A request of the contract over HTTP to the hub, as its admin. */
  const asAdmin = <T = unknown>(name: string, args: unknown = {}): Promise<T> =>
    hubCall<T>(origin, tokens.ada!, name, args);

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    db = await startPostgres();
    home = makeServeHome();
    const env = { ...home.env, DATABASE_URL: db.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') };
    tokens = addMembers(env, [
      ['ada', 'admin'],
      ['vera', 'viewer'],
    ]);

    await control(suite, 'teams', { id: 'roles-team', name: 'Roles team', apiKey: TEAM_KEY });
    for (const [agent, phone] of [
      [SUPPORT, '15550100021'],
      [SALES, '15550100022'],
    ] as const)
      await control(suite, 'teams/roles-team/agents', { ...agent, state: 'connected', phone });

    ({ hub, origin } = await startHub(home, env, { publicUrl: PUBLIC_URL, pollSec: 1, timeoutMs: 60_000 }));
    const { teamId } = await asAdmin<{ teamId: string }>('teams.add', {
      label: 'Roles team',
      baseUrl: suite.emulator.baseUrl,
      apiKey: TEAM_KEY,
      agents: [SUPPORT, SALES],
    });
    // The support agent's webhook points at the hub; the sales agent's does not (yet).
    await asAdmin('webhook.register', {
      teamId,
      agentId: SUPPORT.agentId,
      publicUrl: `${PUBLIC_URL}/hooks/${SUPPORT.agentId}`,
    });
    secret = (await asAdmin<{ secret: string }>('webhook.revealSecret', { teamId, agentId: SUPPORT.agentId })).secret;
  });

  test.afterAll(async () => {
    await hub?.stop();
    await db?.stop();
    home?.remove();
  });

  test('Acknowledge and Send stay in view, disabled, saying why; the Tunnel screen speaks of the hub', async ({
    page,
  }, testInfo) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite, '#/settings');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Team hub' }) });
    await card.getByLabel('Hub address').fill(origin);
    await card.getByLabel('Member token').fill(tokens.vera!);
    await card.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByTestId('hub-indicator')).toHaveText(`Connected to hub ${origin} as vera (viewer)`);
    // Settings: the hub's settings, and "Add a team…" disabled with the reason.
    await expect(page.getByTestId('hub-settings-note')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add a team…' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Add a team…' })).toHaveAccessibleDescription(
      "Your role (viewer) can't add teams — ask a hub admin for the admin role.",
    );

    // Alerts: an agent unlinked at the service opens an incident; vera cannot acknowledge it, and is told why.
    await page.evaluate(() => (window.location.hash = '#/alerts'));
    await expect(page.getByRole('heading', { level: 2, name: 'Alerts' })).toBeVisible();
    await control(suite, `agents/${SALES.agentId}/unlink`);
    const row = page.locator('ul.incidents li.incident').filter({ hasText: SALES.label });
    await expect(row).toHaveCount(1, { timeout: 20_000 });
    const ack = row.getByRole('button', { name: /^Acknowledge/ });
    await expect(ack).toBeVisible();
    await expect(ack).toBeDisabled();
    const ackWhy = "Your role (viewer) can't acknowledge incidents — ask a hub admin for the on-call role or above.";
    await expect(ack).toHaveAccessibleDescription(ackWhy);
    await expect(ack).toHaveAttribute('title', ackWhy);
    await expect(page.getByTestId('role-note').first()).toHaveText(ackWhy);
    await shotsAndAxe(page, testInfo, 'alerts-viewer');

    // Messages: a message the service delivered to the hub; vera opens it and cannot reply, and is told why.
    await page.evaluate(() => (window.location.hash = '#/messages'));
    await expect(page.getByRole('heading', { level: 2, name: 'Messages' })).toBeVisible();
    const text = `Hello viewer ${randomBytes(3).toString('hex')}`;
    await deliverText(origin, SUPPORT.agentId, secret, CUSTOMER, text);
    const contact = page.locator('a.messages-contact').filter({ hasText: text });
    await expect(contact).toBeVisible({ timeout: 15_000 });
    // The notice of the agent whose webhook does not point at the hub speaks of the hub, not of this install.
    await expect(page.getByText(/Not pointed at the team hub/)).toBeVisible({ timeout: 10_000 });
    await expect(page.locator('main')).not.toContainText('this install');
    await shotsAndAxe(page, testInfo, 'inbox-viewer');
    await contact.click();
    await expect(page.getByText(text).last()).toBeVisible();
    const send = page.getByRole('form', { name: 'Send a message' }).getByRole('button', { name: 'Send' });
    await expect(send).toBeDisabled();
    await expect(send).toHaveAccessibleDescription(
      "Your role (viewer) can't send messages — ask a hub admin for the developer role or above.",
    );
    await shotsAndAxe(page, testInfo, 'messages-viewer');

    // Tunnel: the hub receives the deliveries at its public URL; pointing the sales agent there is an admin's.
    await page.evaluate(() => (window.location.hash = '#/tunnel'));
    await expect(page.getByText('at the team hub', { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('.tunnel-facts')).toContainText(PUBLIC_URL);
    await expect(page.locator('.tunnel-facts')).not.toContainText('this computer only');
    const point = page.getByRole('button', {
      name: new RegExp(`^Point the webhook at the team hub for ${SALES.label}`),
    });
    await expect(point).toBeDisabled();
    await expect(point).toHaveAccessibleDescription(
      "Your role (viewer) can't register webhooks — ask a hub admin for the admin role.",
    );
    await expect(page.getByRole('button', { name: /Register this receiver/ })).toHaveCount(0);
    await shotsAndAxe(page, testInfo, 'tunnel-viewer');
  });
});
