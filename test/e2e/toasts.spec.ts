// In-app notices, in Chromium against `serve --emulator` (the demo team plus four more agents that
// need a scan), shot at 1280 and 1024 px, light and dark: at most three notices show at once with
// "+N more"; they sit in the sidebar and never cover the page (forms, the chat composer, metadata);
// an agent that is paired turns its urgent notice into its resolved state in place (no second
// notice), which then closes by itself.
import { expect, test, type Page } from '@playwright/test';
import { agentHash, AGENTS, control, hostCall, open, shooterAcross, useDemoServe } from './support/kit';

const MORE = ['agent-more-1', 'agent-more-2', 'agent-more-3', 'agent-more-4'];

/** No notice overlaps the page's main region. */
async function expectClearOfMain(page: Page): Promise<void> {
  const overlap = await page.evaluate(() => {
    const main = document.querySelector('main')!.getBoundingClientRect();
    return [...document.querySelectorAll('.toast, .toasts-more')].some((el) => {
      const r = el.getBoundingClientRect();
      return r.right > main.left && r.left < main.right && r.bottom > main.top && r.top < main.bottom;
    });
  });
  expect(overlap, 'a notice covers the page').toBe(false);
}

test.describe('notices', () => {
  const suite = useDemoServe();

  test('a bounded stack beside the page: three at most, "+N more"; a paired agent’s notice turns resolved in place and closes', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    await open(page, suite);
    await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
    // Four more agents that need a scan, each raising an urgent incident.
    for (const agentId of MORE) {
      await control(suite, 'teams/demo/agents', { agentId, label: `More ${agentId.slice(-1)}`, state: 'unlinked' });
      await hostCall(suite.ready, 'agents.add', { teamId: suite.teamId, agentId, label: `More ${agentId.slice(-1)}` });
    }
    const region = page.getByRole('status', { name: 'Notifications' });
    await expect(region.locator('.toasts-more')).toBeVisible({ timeout: 15_000 });
    await expect(region.locator('li.toast')).toHaveCount(3);
    await expect(region.locator('.toasts-more')).toContainText(/\+\d+ more/);
    await expectClearOfMain(page);
    await shots('stack-home');

    // On screens with forms and a composer the page stays usable: nothing covers it.
    for (const hash of ['#/console', agentHash(suite, AGENTS.connected, 'chat'), '#/settings']) {
      await page.evaluate((h) => (window.location.hash = h), hash);
      await expect(page.locator('main h2')).toBeFocused();
      for (const width of [1280, 1024]) {
        await page.setViewportSize({ width, height: 720 });
        await expectClearOfMain(page);
      }
    }
    await page.evaluate((h) => (window.location.hash = h), agentHash(suite, AGENTS.connected, 'chat'));
    await shots('stack-chat');

    // Pair the one on top: its urgent notice becomes "back to normal" in place, then leaves by itself.
    const top = await region.locator('li.toast').first().innerText();
    const target = MORE.find((id) => top.includes(id) || top.includes(`More ${id.slice(-1)}`))!;
    expect(target, `the top notice is one of the new agents: ${top}`).toBeTruthy();
    const ofTarget = region.locator('li.toast').filter({ hasText: target });
    await expect(ofTarget).toHaveCount(1);
    await expect(ofTarget).toHaveAttribute('data-tone', 'urgent');
    await hostCall(suite.ready, 'pairing.start', { teamId: suite.teamId, agentId: target });
    await control(suite, `agents/${target}/scan`, { phone: '15550100044' });
    await expect(ofTarget).toHaveAttribute('data-tone', 'success', { timeout: 15_000 });
    await expect(region.locator('li.toast').first()).toHaveAttribute('data-tone', 'success');
    await expect(ofTarget).toContainText(/Resolved: .*back to normal/);
    await expect(region.locator('li.toast').filter({ hasText: target })).toHaveCount(1);
    await shots('resolved-in-place');
    // (The pointer away from it: a notice under the pointer is held.)
    await page.mouse.move(1200, 700);
    await expect(ofTarget).toHaveCount(0, { timeout: 20_000 });
    await expect(region.locator('li.toast')).toHaveCount(3);
  });
});
