// The Agents screen at team scale, in Chromium against `serve --emulator`: the demo team and a team
// "Fleet" of 1,200 agents (every 100th unlinked) polled every 15 s. The list is windowed (at most 300
// rows in the page, each telling its place in the whole list), scrolling reaches the last agent, Tab
// walks on past the rows first shown and the focused row stays while the page scrolls away, the
// filters (health, team, words) narrow the list and say how many are left, axe finds nothing serious,
// and it is photographed at 1280×800 and 1024×700.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { addScaleTeam, removeScaleTeam, scaleLabel, type ScaleTeam } from './support/many-agents';
import { LABELS, open, useServe } from './support/kit';

const FLEET = 1_200;
const DEMO = 3;
const ALL = FLEET + DEMO;
const MAX_ROWS = 300;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;

test.describe('agents screen at team scale', () => {
  const suite = useServe(['--emulator', '--poll-sec', '15', '--fast-poll-sec', '2']);
  let fleet: ScaleTeam;

  // Inside the serve's block: this block's afterAll runs before the one that stops serve.
  test.describe('with a team of 1,200 agents', () => {
    test.beforeAll(async () => {
      test.setTimeout(180_000);
      fleet = await addScaleTeam(suite.ready, suite.emulator, suite.home.configDir, {
        label: 'Fleet',
        prefix: 'fleet',
        count: FLEET,
        unlinkedEvery: 100,
      });
    });

    // serve polling this team does not exit within 10 s of SIGTERM (it says "closed", then its event
    // loop stays busy; with 300 agents it exits at once): the team is removed before serve stops.
    test.afterAll(async () => {
      if (fleet) await removeScaleTeam(suite.ready, suite.home.configDir, fleet);
    });

    const rows = (page: Page) => page.locator('ul.agents > li');

    /** The screen with every agent listed and polled once (no row says "not polled yet"). */
    async function openAll(page: Page): Promise<void> {
      await open(page, suite);
      await expect(page.getByRole('list', { name: `${ALL} agents, worst health first` })).toBeVisible({
        timeout: 30_000,
      });
      await expect(page.locator('.health-summary')).toContainText(`${ALL} agents:`);
      await expect(page.locator('.health-summary')).not.toContainText('not checked yet', { timeout: 45_000 });
    }

    test('windowed: few rows in the page, the last agent reached by scrolling, Tab and focus kept', async ({
      page,
    }, testInfo) => {
      test.setTimeout(120_000);
      await page.setViewportSize(SIZES[0]);
      await openAll(page);
      const shown = await rows(page).count();
      expect(shown).toBeGreaterThan(5);
      expect(shown).toBeLessThanOrEqual(MAX_ROWS);
      // Worst first: the agents that need a scan (the demo's and Fleet's twelve) head the list.
      await expect(rows(page).first()).toContainText('Needs a QR scan');
      await expect(rows(page).first()).toHaveAttribute('aria-posinset', '1');
      await expect(rows(page).first()).toHaveAttribute('aria-setsize', String(ALL));

      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: testInfo.outputPath(`agents-${FLEET}-${size.width}x${size.height}.png`) });
      }
      await page.setViewportSize(SIZES[0]);

      // The end of the page is the end of the list: its last agent is there, on screen.
      const last = page.locator(`ul.agents > li[aria-posinset="${ALL}"]`);
      await expect(async () => {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await expect(last).toBeInViewport({ timeout: 1_000 });
      }).toPass({ timeout: 15_000 });
      expect(await rows(page).count()).toBeLessThanOrEqual(MAX_ROWS);
      await page.screenshot({ path: testInfo.outputPath(`agents-${FLEET}-end.png`) });

      // Tab from the first row walks on past the rows first shown; the focused link is on screen.
      await page.evaluate(() => window.scrollTo(0, 0));
      await rows(page).first().locator('a.agent-label').focus();
      const place = () =>
        page.evaluate(() => Number(document.activeElement?.closest('li')?.getAttribute('aria-posinset') ?? 0));
      for (let i = 0; i < 75; i++) await page.keyboard.press('Tab');
      const reached = await place();
      expect(reached).toBeGreaterThan(25);
      await expect(page.locator('ul.agents a:focus')).toBeInViewport();
      // Scrolled far away, the focused row stays in the page with the focus; Shift+Tab goes back one link.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
      await expect(page.locator('ul.agents a:focus')).toBeAttached();
      expect(await place()).toBe(reached);
      await page.keyboard.press('Shift+Tab');
      expect(await place()).toBeGreaterThanOrEqual(reached - 1);
      expect(await place()).toBeLessThanOrEqual(reached);
      expect(await rows(page).count()).toBeLessThanOrEqual(MAX_ROWS);
    });

    test('filters by health, team and words, saying how many are left', async ({ page }, testInfo) => {
      test.setTimeout(90_000);
      await page.setViewportSize(SIZES[1]);
      await openAll(page);
      const status = page.locator('.filter-count');

      await page.getByLabel('Health', { exact: true }).selectOption('needs-scan');
      const scans = fleet.unlinked.length + 1; // the demo's unlinked agent too
      await expect(rows(page)).toHaveCount(scans);
      await expect(status).toHaveText(`${scans} of ${ALL} agents`);
      await page.getByLabel('Team', { exact: true }).selectOption({ label: 'Fleet' });
      await expect(rows(page)).toHaveCount(fleet.unlinked.length);
      for (const r of await rows(page).all()) await expect(r).toContainText('Needs a QR scan');
      await page.screenshot({ path: testInfo.outputPath('agents-filtered-1024x700.png') });

      await page.getByLabel('Health', { exact: true }).selectOption('');
      await expect(page.getByRole('list', { name: `${FLEET} agents, worst health first` })).toBeVisible();
      expect(await rows(page).count()).toBeLessThanOrEqual(MAX_ROWS);
      await page.getByLabel('Filter agents').fill('fleet-00150');
      await expect(rows(page)).toHaveCount(1);
      await expect(rows(page).first()).toContainText(scaleLabel(fleet, 149));
      await expect(status).toHaveText(`1 of ${ALL} agents`);
      // A number finds its agent too.
      await page.getByLabel('Filter agents').fill(String(15_557_000_000 + 41));
      await expect(rows(page)).toHaveCount(1);
      await expect(rows(page).first()).toContainText(scaleLabel(fleet, 41));

      await page.getByLabel('Team', { exact: true }).selectOption('');
      await page.getByLabel('Filter agents').fill('support');
      await expect(rows(page)).toHaveCount(1);
      await expect(rows(page).first()).toContainText(LABELS.connected);
      await page.getByLabel('Filter agents').fill('');
      await expect(status).toHaveText('');
      await expect(page.getByRole('list', { name: `${ALL} agents, worst health first` })).toBeVisible();
    });

    test('axe finds nothing serious on the screen of 1,203 agents, light and dark', async ({ page }, testInfo) => {
      test.setTimeout(90_000);
      await page.setViewportSize(SIZES[0]);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await openAll(page);
        const results = await new AxeBuilder({ page }).analyze();
        const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        await page.screenshot({ path: testInfo.outputPath(`agents-axe-${scheme}.png`) });
        expect(
          bad,
          bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n'),
        ).toEqual([]);
      }
    });
  });
});
