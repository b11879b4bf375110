// Settings → Team hub, in Chromium against `serve --emulator` (the demo team) and a real hub on a real
// Postgres: a teammate connects the browser host with the hub's URL and a member token; the header then says
// which hub, as whom, and the screens show the hub's team instead of this computer's; a refused token is said
// on screen; the token is never in the page; Disconnect brings this computer's team back.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startPostgres, type TestPostgres } from '../integration/hub/postgres';
import { addMembers, runCommand, startHub } from './support/hub';
import { AGENTS, DEMO_KEY, open, shooter, useServe } from './support/kit';
import { makeServeHome, type RunningServe, type ServeHome } from './support/serve';

test.describe('connect to a team hub', () => {
  const suite = useServe();
  let db: TestPostgres;
  let home: ServeHome;
  let hub: RunningServe;
  let origin: string;
  let tokens: Record<string, string> = {};

  const cli = (args: string[], env: NodeJS.ProcessEnv) => runCommand(args, { ...home.env, ...env });

  test.beforeAll(async () => {
    db = await startPostgres();
    home = makeServeHome();
    const env = { ...home.env, DATABASE_URL: db.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') };
    tokens = addMembers(env, [
      ['ada', 'admin'],
      ['vera', 'viewer'],
    ]);
    ({ hub, origin } = await startHub(home, env, { publicUrl: 'https://hub.example.test' }));
    // The team lives on the hub: added through it, by its admin.
    cli(['team', 'add', '--label', 'Hub team', '--base-url', suite.emulator.baseUrl, '--agent', AGENTS.connected], {
      CHANNEL_HUB_URL: origin,
      CHANNEL_HUB_TOKEN: tokens.ada,
      CHANNEL_API_KEY: DEMO_KEY,
    });
  });

  test.afterAll(async () => {
    await hub?.stop();
    await db?.stop();
    home?.remove();
  });

  test('connect, see the hub’s team as its member, disconnect', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const demoTeam = suite.ready.demoTeam!.label;
    await open(page, suite, '#/settings');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Team hub' }) });
    await expect(page.getByRole('article', { name: `Team ${demoTeam}` })).toBeVisible();

    // A wrong token is refused, in words.
    await card.getByLabel('Hub address').fill(origin);
    await card.getByLabel('Member token').fill(`cch_${'x'.repeat(43)}`);
    await card.getByRole('button', { name: 'Connect' }).click();
    await expect(card.getByRole('alert')).toContainText('refused the token: missing, wrong or revoked');
    await expect(card.getByLabel('Member token')).toHaveAttribute('aria-invalid', 'true');
    await shot('refused');

    await card.getByLabel('Member token').fill(tokens.vera!);
    await card.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByTestId('hub-indicator')).toHaveText(`Connected to hub ${origin} as vera (viewer)`);
    await expect(page.getByRole('article', { name: 'Team Hub team' })).toBeVisible();
    await expect(page.getByRole('article', { name: `Team ${demoTeam}` })).toHaveCount(0);
    await shot('connected');
    // The window never holds the token.
    expect(await page.content()).not.toContain(tokens.vera);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toContain(tokens.vera);

    await card.getByRole('button', { name: 'Disconnect' }).click();
    await expect(page.getByTestId('hub-indicator')).toHaveCount(0);
    await expect(page.getByRole('article', { name: `Team ${demoTeam}` })).toBeVisible();
    await expect(page.getByRole('article', { name: 'Team Hub team' })).toHaveCount(0);
  });
});
