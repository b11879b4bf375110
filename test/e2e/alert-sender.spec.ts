// One companion per data folder: a second `serve` on a folder another one owns never starts — it says which
// process owns it and that commands attach to it. The first posts the alerts itself (its Alerts screen says
// nothing of another app); killed, it leaves the folder to the next one started, which posts them. Every tab is
// a client of the one companion: a snooze set in one tab shows in the other, and ends there for both.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { alertsPostedElsewhereWords } from '../../src-shared/vocabulary';
import { hostCall, shooterAcross, useServe } from './support/kit';
import { startServe } from './support/serve';

interface Ready {
  url: string;
  pid: number;
  alertsPostedBy: { pid: number; since: number } | null;
}

test.describe('one companion per data folder, and the alerts it posts', () => {
  const suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'], { restartable: true });

  test('a second serve is refused naming the first, which posts the alerts; once it dies, the next one posts them', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const across = shooterAcross(page, testInfo);
    await hostCall(suite.ready, 'settings.update', { patch: { alertWebhookUrl: 'http://127.0.0.1:9/alerts' } });
    const first = suite.ready as unknown as Ready;
    expect(first.alertsPostedBy).toBeNull();

    const refused = await startServe(['--port', '0'], suite.home).then(
      async (s) => {
        await s.stop();
        return 'started';
      },
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(refused).toContain('serve exited before it was ready');
    expect(refused).toContain(`is owned by channel-companion serve (process ${first.pid}, since `);
    expect(refused).toContain('Commands attach to the running one');

    // The owner's Alerts screen: it posts them itself, so nothing says another app does.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(first.url);
    await page.waitForFunction(() => !location.hash.includes('token='));
    await page.evaluate(() => (window.location.hash = '#/alerts'));
    await expect(page.getByLabel('Alert webhook URL')).toHaveValue('http://127.0.0.1:9/alerts');
    await expect(page.getByText(alertsPostedElsewhereWords(first.pid))).toHaveCount(0);
    await page.getByLabel('Alert webhook URL').scrollIntoViewIfNeeded();
    await across('owner-alerts');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const bad = (await new AxeBuilder({ page }).analyze()).violations.filter(
        (v) => v.impact === 'serious' || v.impact === 'critical',
      );
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // The owner dies: the next serve takes the folder (no other owner left) and posts the alerts itself.
    await suite.kill();
    await suite.restart();
    const next = suite.ready as unknown as Ready;
    expect(next.pid).not.toBe(first.pid);
    expect(next.alertsPostedBy).toBeNull();
    await page.goto(next.url);
    await page.waitForFunction(() => !location.hash.includes('token='));
    await page.evaluate(() => (window.location.hash = '#/alerts'));
    await expect(page.getByLabel('Alert webhook URL')).toHaveValue('http://127.0.0.1:9/alerts');
    await expect(page.getByText(alertsPostedElsewhereWords(first.pid))).toHaveCount(0);
    await across('next-owner-alerts');
  });

  test('a snooze set in one tab shows in the other tab of the same companion, and ends there for both', async ({
    page,
    context,
  }, testInfo) => {
    test.setTimeout(60_000);
    const other = await context.newPage();
    try {
      const open = async (p: typeof page) => {
        await p.setViewportSize({ width: 1280, height: 800 });
        await p.goto((suite.ready as unknown as Ready).url);
        await p.waitForFunction(() => !location.hash.includes('token='));
        await p.evaluate(() => (window.location.hash = '#/alerts'));
        await expect(p.getByRole('heading', { name: 'Snooze' })).toBeVisible();
      };
      await open(page);
      await open(other);
      await expect(other.getByText('Alerts are on.')).toBeVisible();

      await page.getByRole('button', { name: 'Snooze 15 min' }).click();
      await expect(page.getByText(/Alerts are snoozed until/)).toBeVisible();
      await expect(other.getByText(/Alerts are snoozed until/)).toBeVisible({ timeout: 10_000 });
      await other.getByRole('heading', { name: 'Snooze' }).scrollIntoViewIfNeeded();
      await shooterAcross(other, testInfo)('snoozed-in-the-other-tab');

      await other.getByRole('button', { name: 'Resume alerts now' }).click();
      await expect(other.getByText('Alerts are on.')).toBeVisible();
      await expect(page.getByText('Alerts are on.')).toBeVisible({ timeout: 10_000 });
    } finally {
      await other.close();
    }
  });
});
