// The agents home and the app frame, in Chromium against `serve --emulator` (the demo team), each
// state shot at 1280 and 1024 px, light and dark: the summary line counts the agents by health; each
// row names the agent id beside its label and offers Pair only where a scan is needed; the sidebar's
// "worst now" badge stays inside the sidebar at every width down to 1024 px (also while an agent
// reconnects); changing route brings the page back to its top with the header in view and focus on
// the new page's heading.
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, LABELS, agentRow, control, hostCall, open, shooterAcross, useDemoServe } from './support/kit';

/** The sidebar and everything in it stays inside its column: nothing spills into the page. */
async function expectSidebarContained(page: Page): Promise<void> {
  const box = await page.evaluate(() => {
    const side = document.querySelector('.sidebar')!.getBoundingClientRect();
    const parts = [
      ...document.querySelectorAll('.sidebar .nav-worst, .sidebar .nav-worst .badge, .sidebar .toast'),
    ].map((el) => el.getBoundingClientRect().right);
    const main = document.querySelector('main')!.getBoundingClientRect().left;
    return { right: side.right, widest: Math.max(0, ...parts), main };
  });
  expect(box.widest, 'the worst-now badge and the notices end inside the sidebar').toBeLessThanOrEqual(box.right + 0.5);
  expect(box.right, 'the sidebar ends where the page begins').toBeLessThanOrEqual(box.main + 0.5);
}

test.describe('agents home and the app frame', () => {
  const suite = useDemoServe();

  test('the summary counts agents by health; rows name the id and offer Pair only where a scan is needed', async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await open(page, suite);
    await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
    const summary = page.locator('.health-summary');
    await expect(summary).toHaveText('3 agents:● 2 connected,↻ 0 reconnecting,▣ 1 needs a QR scan,✕ 0 unreachable', {
      timeout: 10_000,
    });
    const unlinked = agentRow(page, AGENTS.unlinked);
    await expect(unlinked.locator('.agent-id')).toHaveText(AGENTS.unlinked);
    await expect(agentRow(page, AGENTS.connected).locator('.agent-id')).toHaveText(AGENTS.connected);
    await expect(unlinked.getByRole('link', { name: `Pair ${LABELS.unlinked}` })).toBeVisible();
    await expect(agentRow(page, AGENTS.connected).getByRole('link', { name: /^Pair/ })).toHaveCount(0);
    await expect(
      agentRow(page, AGENTS.connected).getByRole('link', { name: `Chat with ${LABELS.connected}` }),
    ).toBeVisible();
    await shots('home');

    // Pair goes straight to the agent's pairing screen, its heading focused.
    await unlinked.getByRole('link', { name: `Pair ${LABELS.unlinked}` }).click();
    await expect(page).toHaveURL(new RegExp(`#/agents/${AGENTS.unlinked}/pairing`));
    await expect(page.locator('main h2')).toBeFocused();
  });

  test('the worst-now badge fits the sidebar at 1280 and 1024 px, also while an agent reconnects', async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await open(page, suite);
    const worst = page.locator('.nav-worst');
    await expect(worst).toContainText('Needs a QR scan', { timeout: 10_000 });
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 720 });
      await expectSidebarContained(page);
    }
    await shots('worst-needs-scan');

    // Pair the unlinked agent, then drop a link: reconnecting is the worst now, with its longest words.
    await hostCall(suite.ready, 'pairing.start', { teamId: suite.teamId, agentId: AGENTS.unlinked });
    await control(suite, `agents/${AGENTS.unlinked}/scan`, { phone: '15550100002' });
    await expect(page.locator('.health-summary')).toContainText('0 need a QR scan', { timeout: 10_000 });
    await control(suite, `agents/${AGENTS.connected}/drop`, { seconds: 60 });
    await expect(worst).toContainText('Reconnecting', { timeout: 10_000 });
    await expect(worst).toContainText('recovers on its own');
    await expect(page.locator('.health-summary')).toContainText('1 reconnecting');
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 720 });
      await expectSidebarContained(page);
    }
    await shots('worst-reconnecting');
  });

  test('changing route keeps the header in view and moves focus to the page heading', async ({ page }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await page.setViewportSize({ width: 1280, height: 500 });
    await open(page, suite, '#/settings');
    await expect(page.getByRole('heading', { level: 2, name: 'Settings' })).toBeFocused();
    // Far down a long page, follow a link with the keyboard.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Alerts/ })
      .focus();
    await page.keyboard.press('Enter');
    const heading = page.getByRole('heading', { level: 2, name: 'Alerts' });
    await expect(heading).toBeFocused();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await expect(page.getByRole('heading', { level: 1, name: 'Channel Companion' })).toBeInViewport();
    // Tab goes on from the heading into the page, not back to the top of the document.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
    await shots('route-alerts');
  });
});
