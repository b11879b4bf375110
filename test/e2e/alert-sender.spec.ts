// Two apps on one config and data folder (two `serve`s here; the desktop app beside `serve` is the
// same): only the first one started posts the alerts. The second one's Alerts screen says
// which process does, until that process dies; then the second one posts, and the first one, started
// again, is the one that says so. A snooze set on one app's screen holds on the other's too.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { alertsPostedElsewhereWords } from '../../src-shared/vocabulary';
import { hostCall, shooterAcross, useServe } from './support/kit';
import { startServe, type RunningServe } from './support/serve';

interface Ready {
  url: string;
  pid: number;
  alertsPostedBy: { pid: number; since: number } | null;
}

test.describe('the alerts posted by two apps on one data folder', () => {
  const suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'], { restartable: true });

  test('the second app says the first posts it, and posts it itself once the first one dies', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const across = shooterAcross(page, testInfo);
    await hostCall(suite.ready, 'settings.update', { patch: { alertWebhookUrl: 'http://127.0.0.1:9/alerts' } });
    const first = suite.ready as unknown as Ready;
    expect(first.alertsPostedBy).toBeNull();

    let second: RunningServe | null = await startServe(['--port', '0'], suite.home);
    try {
      const ready = second.ready as unknown as Ready;
      expect(ready.alertsPostedBy).toMatchObject({ pid: first.pid });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(ready.url);
      await page.waitForFunction(() => !location.hash.includes('token='));
      await page.evaluate(() => (window.location.hash = '#/alerts'));
      const words = alertsPostedElsewhereWords(first.pid);
      await expect(page.getByRole('status').filter({ hasText: words })).toBeVisible();
      await expect(page.getByLabel('Alert webhook URL')).toHaveValue('http://127.0.0.1:9/alerts');
      await page.getByLabel('Alert webhook URL').scrollIntoViewIfNeeded();
      await across('second-app-alerts');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const bad = (await new AxeBuilder({ page }).analyze()).violations.filter(
          (v) => v.impact === 'serious' || v.impact === 'critical',
        );
        expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });

      // The first app dies: the second one takes over within its 10 s retry, and the page is told.
      await suite.kill();
      await expect(page.getByText(words)).toHaveCount(0, { timeout: 20_000 });
      await across('second-app-posts');

      // The first one, started again, finds the second one posting.
      await suite.restart();
      expect((suite.ready as unknown as Ready).alertsPostedBy).toMatchObject({ pid: ready.pid });
      expect(await second.stop()).toBe(0);
      second = null;
    } finally {
      await second?.stop();
    }
  });

  test("a snooze set on the second app's screen shows on the first app's, and ends there for both", async ({
    page,
    context,
  }, testInfo) => {
    test.setTimeout(60_000);
    // The second app has no key for the emulator's team (the first holds it in memory): it polls
    // nothing, and still hears what is done in the first one.
    const second = await startServe(['--port', '0'], suite.home);
    const firstPage = await context.newPage();
    try {
      const open = async (p: typeof page, url: string) => {
        await p.setViewportSize({ width: 1280, height: 800 });
        await p.goto(url);
        await p.waitForFunction(() => !location.hash.includes('token='));
        await p.evaluate(() => (window.location.hash = '#/alerts'));
        await expect(p.getByRole('heading', { name: 'Snooze' })).toBeVisible();
      };
      await open(page, (second.ready as unknown as Ready).url);
      await open(firstPage, (suite.ready as unknown as Ready).url);
      await expect(firstPage.getByText('Alerts are on.')).toBeVisible();

      await page.getByRole('button', { name: 'Snooze 15 min' }).click();
      await expect(page.getByText(/Alerts are snoozed until/)).toBeVisible();
      // Each app reads what the other did within 2 s.
      await expect(firstPage.getByText(/Alerts are snoozed until/)).toBeVisible({ timeout: 10_000 });
      await firstPage.getByRole('heading', { name: 'Snooze' }).scrollIntoViewIfNeeded();
      await shooterAcross(firstPage, testInfo)('snoozed-in-the-other-app');

      await firstPage.getByRole('button', { name: 'Resume alerts now' }).click();
      await expect(firstPage.getByText('Alerts are on.')).toBeVisible();
      await expect(page.getByText('Alerts are on.')).toBeVisible({ timeout: 10_000 });
    } finally {
      await firstPage.close();
      await second.stop();
    }
  });
});
