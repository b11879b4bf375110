// serve restarted with no flags keeps its address: in Chromium, serve is killed (as a crash would)
// and started again with neither --port nor a token; it listens on the port it kept and takes the
// token it kept (browser-host.json in its config folder), so the open tab recovers by itself, with
// no new link. Started again with --new-token, the same tab is refused and says why.
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, agentRow, open, shooter, useServe } from './support/kit';

const banner = (page: Page) => page.getByRole('region', { name: /not answering|no longer accepted/ });

test.describe('serve restarted with no flags', () => {
  const suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'], { restartable: 'by-itself' });

  test('the open tab recovers by itself on the kept port and token; --new-token refuses it', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite);
    const connected = agentRow(page, AGENTS.connected);
    await expect(connected).toContainText('Connected', { timeout: 15_000 });
    const first = suite.ready;
    const tabUrl = page.url();

    await suite.kill();
    await expect(banner(page)).toContainText('The companion is not answering.', { timeout: 5_000 });
    await expect(banner(page)).toContainText('a restart keeps its address and access link');
    await shot('killed');

    await suite.restart();
    expect(suite.ready.port).toBe(first.port);
    expect(suite.ready.url).toBe(first.url);
    await expect(banner(page)).toHaveCount(0, { timeout: 10_000 });
    await expect(connected).toContainText('Connected', { timeout: 10_000 });
    // The same tab, never sent anywhere: no new link was needed.
    expect(page.url()).toBe(tabUrl);
    await shot('recovered');

    await suite.kill();
    await suite.restart({ newToken: true });
    expect(suite.ready.port).toBe(first.port);
    expect(suite.ready.url).not.toBe(first.url);
    await expect(banner(page)).toContainText('This page’s access link is no longer accepted.', { timeout: 10_000 });
    await expect(banner(page)).toContainText('started with a new access token (--new-token');
    await shot('new-token');
  });
});
