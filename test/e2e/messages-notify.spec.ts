// New-message notices and unread counts in Chromium through the browser host and the emulator: a
// contact writes to the demo agent (whose webhook points at the app's receiver), an in-app notice
// appears with a link to the thread, the sidebar and the home row count the unread messages; a
// second message from the same contact updates the one notice; opening the thread through the
// notice clears the counts everywhere; a message to the thread open with focus makes no notice.
// axe: 0 serious/critical; screenshots at 1280×800 and 1024×700, light and dark.
import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { AGENTS, LABELS, agentRow, control, hostCall, open, shooter, useDemoServe } from './support/kit';

const AGENT = AGENTS.connected;
const LABEL = LABELS.connected;
const FROM = '15550108801';
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;

const suite = useDemoServe();

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const notices = (page: Page) => page.getByRole('status', { name: 'Notifications' });

async function axe(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  await writeFile(testInfo.outputPath(`axe-${name}.json`), JSON.stringify(results.violations, null, 2));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect
    .soft(
      bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      `axe on ${name}`,
    )
    .toEqual([]);
}

async function shots(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const shot = shooter(page, testInfo);
  for (const size of SIZES) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await shot(`${name}-${size.width}x${size.height}-${scheme}`);
    }
  }
  await page.setViewportSize(SIZES[0]);
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('new-message notices and unread counts', () => {
  test('a contact writes: a notice with a link to the thread, unread badges on the nav and the home row; opening the thread clears them', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await open(page, suite, '#/');
    // The agent's webhook points at the app's receiver, so what the contact writes reaches the app.
    const listenUrl = await expect
      .poll(async () => (await hostCall<{ listenUrl: string | null }>(suite.ready, 'tunnel.status')).listenUrl, {
        timeout: 10_000,
      })
      .not.toBeNull()
      .then(async () => (await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status')).listenUrl);
    await hostCall(suite.ready, 'webhook.register', {
      teamId: suite.teamId,
      agentId: AGENT,
      publicUrl: `${listenUrl}/hooks/${AGENT}`,
    });

    // 1. A contact writes: the notice, and the counts in the sidebar and on the home row.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'Is my order 4521 on its way?' });
    const first = notices(page).getByRole('link', { name: `New message from +${FROM}` });
    await expect(first).toBeVisible({ timeout: 10_000 });
    await expect(notices(page)).toContainText('Is my order 4521 on its way?');
    await expect(notices(page)).toContainText(`To ${LABEL} (${AGENT})`);
    await expect(nav(page).getByRole('link', { name: 'Messages , 1 unread' })).toBeVisible();
    const rowBadge = agentRow(page, AGENT).getByRole('link', { name: `${LABEL}: 1 unread message` });
    await expect(rowBadge).toHaveAttribute(
      'href',
      `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${AGENT}`,
    );

    // 2. The same contact again: the one notice says how many; the counts agree.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'Hello? Anyone there?' });
    const second = notices(page).getByRole('link', { name: `2 new messages from +${FROM}` });
    await expect(second).toBeVisible({ timeout: 10_000 });
    await expect(notices(page).getByRole('link', { name: /new message/i })).toHaveCount(1);
    await expect(nav(page).getByRole('link', { name: 'Messages , 2 unread' })).toBeVisible();
    await expect(agentRow(page, AGENT).getByRole('link', { name: `${LABEL}: 2 unread messages` })).toBeVisible();
    await axe(page, testInfo, 'home-with-notice');
    await shots(page, testInfo, 'home-with-notice');

    // 3. The notice's link opens the thread; reading it clears the counts everywhere.
    await second.click();
    await expect(page).toHaveURL(/#\/messages\?team=.*&agent=agent-connected&with=%2B15550108801$/);
    const thread = page.getByRole('region', { name: `Conversation with +${FROM}` });
    await expect(thread.getByText('Hello? Anyone there?')).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Messages', exact: true })).toBeVisible({ timeout: 10_000 });
    await expect(notices(page).getByRole('link', { name: /new message/i })).toHaveCount(0);
    expect((await hostCall<{ total: number }>(suite.ready, 'messages.unread')).total).toBe(0);

    // 4. A message to the thread open with focus: shown in it, no notice, no count.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'Thanks, found it' });
    await expect(thread.getByText('Thanks, found it')).toBeVisible({ timeout: 10_000 });
    await expect(nav(page).getByRole('link', { name: 'Messages', exact: true })).toBeVisible();
    await expect(notices(page).getByRole('link', { name: /new message/i })).toHaveCount(0);
    await axe(page, testInfo, 'thread-read');
    await shots(page, testInfo, 'thread-read');

    // 5. Back home: no badge on the row.
    await page.evaluate(() => (window.location.hash = '#/'));
    await expect(agentRow(page, AGENT)).toBeVisible();
    await expect(agentRow(page, AGENT).locator('.agent-unread')).toHaveCount(0);
  });
});
