// Never stale, never falsely green, in Chromium against `serve --emulator`: the serve process is
// killed (as a crash would) → within 5 s a banner says the companion is not answering, agents and
// the sidebar read Unknown with when they were last heard; serve starts again on the same port
// with the same token → the banner goes by itself and what is shown is fresh (the new run's data,
// live events again). Started again with a new token, the banner says to open the new link, and
// opening it in the same tab recovers.
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, agentRow, control, open, shooter, useServe } from './support/kit';

const banner = (page: Page) => page.getByRole('region', { name: /not answering|no longer accepted/ });
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const teamInPage = (page: Page) =>
  page.evaluate(
    () =>
      Object.keys(
        (
          window as unknown as { __channelCompanionState(): { agents: Record<string, unknown> } }
        ).__channelCompanionState().agents,
      )[0]?.split('/')[0],
  );

test.describe('when the companion stops answering', () => {
  // The demo team, polled every 2 s (1 s while something is wrong), restartable on its port and token.
  const suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'], { restartable: true });

  test('killed: a banner within 5 s and agents unknown; back on the same port and token: banner gone, the same world read afresh', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite);
    const connected = agentRow(page, AGENTS.connected);
    await expect(connected).toContainText('Connected', { timeout: 15_000 });
    // This agent drops (for 10 min); the restarted run keeps the emulator's world, so it is still dropped then.
    await control(suite, `/agents/${AGENTS.connected}/drop`, { seconds: 600 });
    await expect(connected).toContainText('Reconnecting', { timeout: 10_000 });
    const oldTeam = suite.teamId;
    expect(await teamInPage(page)).toBe(oldTeam);

    const killedAt = Date.now();
    await suite.kill();
    await expect(banner(page)).toBeVisible({ timeout: 5_000 });
    const saidAfterMs = Date.now() - killedAt;
    testInfo.annotations.push({ type: 'banner after kill', description: `${saidAfterMs} ms` });
    expect(saidAfterMs).toBeLessThan(5_000);
    await expect(banner(page)).toContainText('The companion is not answering.');
    await expect(banner(page)).toContainText(/Last heard (just now|\d+ s ago)\./);
    await expect(banner(page)).toContainText('Is channel-companion serve still running?');
    await expect(page.locator('ul.agents > li')).toHaveCount(3);
    for (const row of await page.locator('ul.agents > li').all()) {
      await expect(row).toContainText('Unknown');
      await expect(row).toContainText('last heard');
      await expect(row).not.toContainText(/Connected|Reconnecting|Needs a QR scan/);
    }
    await expect(nav(page).locator('.nav-worst')).toHaveText(/Worst now:\s*\?\s*Unknown/);
    await shot('killed-1280');
    await page.setViewportSize({ width: 1024, height: 768 });
    await shot('killed-1024');
    await page.setViewportSize({ width: 1280, height: 800 });

    await suite.restart();
    await expect(banner(page)).toHaveCount(0, { timeout: 10_000 });
    // The same world goes on: the team keeps its id and the agent is still dropped, read afresh from the new run.
    await expect.poll(() => teamInPage(page), { timeout: 10_000 }).toBe(suite.teamId);
    expect(suite.teamId).toBe(oldTeam);
    await expect(connected).toContainText('Reconnecting', { timeout: 10_000 });
    await expect(connected).not.toContainText('Unknown');
    await expect(nav(page)).not.toContainText('Unknown');
    // Live again: the agent recovers in the new run, and the page hears it through the event stream.
    await control(suite, `/agents/${AGENTS.connected}/recover`, {});
    await expect(connected).toContainText('Connected', { timeout: 10_000 });
    await shot('back');
  });

  test('started again with a new token: the banner says to open the new link; opening it in this tab recovers', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite);
    await expect(agentRow(page, AGENTS.unlinked)).toContainText('Needs a QR scan', { timeout: 15_000 });
    await suite.kill();
    await expect(banner(page)).toContainText('The companion is not answering.', { timeout: 5_000 });
    await suite.restart({ newToken: true });
    await expect(banner(page)).toContainText('This page’s access link is no longer accepted.', { timeout: 10_000 });
    await expect(banner(page)).toContainText('printed a new link');
    await expect(agentRow(page, AGENTS.unlinked)).toContainText('Unknown');
    await shot('refused');

    // The new link, opened in the same tab (only the #token=… part differs).
    const url = suite.ready.url;
    await page.evaluate((u) => {
      window.location.href = u;
    }, url);
    await expect(banner(page)).toHaveCount(0, { timeout: 10_000 });
    await expect.poll(() => page.evaluate(() => location.hash)).not.toContain('token=');
    await expect.poll(() => teamInPage(page), { timeout: 10_000 }).toBe(suite.teamId);
    await expect(agentRow(page, AGENTS.unlinked)).toContainText('Needs a QR scan', { timeout: 10_000 });
    await expect(agentRow(page, AGENTS.unlinked)).not.toContainText('Unknown');
  });
});
