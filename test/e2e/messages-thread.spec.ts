// A long Messages thread in Chromium against `serve --emulator`: this app's receiver is registered
// for the agent, a contact writes 600 messages (the emulator's inbound, delivered signed to the
// receiver). The thread opens at the newest with at most 300 message nodes, stays bounded while
// scrolling all the way up loads every older page, follows a new message at the bottom and, scrolled
// up, offers a "new message" button instead of jumping; it fills the window with the composer at the
// bottom at 1280×800 and 1024×700; axe finds nothing serious or critical, light and dark.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, control, hostCall, open, shooter, useServe, type Suite } from './support/kit';

const AGENT = AGENTS.connected;
const FROM = '15550109000';
const COUNT = 600;
const MAX_NODES = 300;

let suite: Suite;

const scroller = (page: Page) => page.getByRole('region', { name: /^Messages with / });
const bubbles = (page: Page) => page.locator('.messages-thread li.messages-bubble');

async function axe(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('main').analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const said = bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');
  expect.soft(bad, `axe violations (${name}):\n${said}`).toEqual([]);
}

/** Where the composer and the scroller sit in the window. */
const layout = (page: Page) =>
  page.evaluate(() => {
    const form = document.querySelector('.messages-composer')!.getBoundingClientRect();
    const list = document.querySelector('.messages-scroller')!.getBoundingClientRect();
    return { composerBottom: form.bottom, listHeight: list.height, windowHeight: window.innerHeight };
  });

test.describe('a long Messages thread', () => {
  suite = useServe();

  test('opens at the newest with a bounded DOM, stays bounded to the oldest, follows new messages; full height; axe', async ({
    page,
  }, testInfo) => {
    test.setTimeout(180_000);
    const shot = shooter(page, testInfo);
    let listenUrl: string | null = null;
    await expect
      .poll(
        async () =>
          (listenUrl = (await hostCall<{ listenUrl: string | null }>(suite.ready, 'tunnel.status')).listenUrl),
      )
      .not.toBeNull();
    await hostCall(suite.ready, 'webhook.register', {
      teamId: suite.teamId,
      agentId: AGENT,
      publicUrl: `${listenUrl}/hooks/${AGENT}`,
    });
    for (let i = 0; i < COUNT; i++)
      await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: `message ${i}` });
    await expect
      .poll(
        async () =>
          (
            await hostCall<{ messages: unknown[] }>(suite.ready, 'messages.thread', {
              teamId: suite.teamId,
              agentId: AGENT,
              phone: FROM,
              limit: 1_000,
            })
          ).messages.length,
        { timeout: 60_000 },
      )
      .toBe(COUNT);

    await page.setViewportSize({ width: 1280, height: 800 });
    await open(
      page,
      suite,
      `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${encodeURIComponent(AGENT)}&with=${encodeURIComponent(`+${FROM}`)}`,
    );
    const list = scroller(page);
    await expect(list.getByText(`message ${COUNT - 1}`, { exact: true })).toBeInViewport();
    expect(await bubbles(page).count()).toBeLessThanOrEqual(MAX_NODES);
    // The thread takes the window's height, the composer at its bottom.
    let box = await layout(page);
    expect(box.composerBottom).toBeLessThanOrEqual(box.windowHeight);
    expect(box.composerBottom).toBeGreaterThan(box.windowHeight - 60);
    expect(box.listHeight).toBeGreaterThan(400);

    // Scrolling to the top again and again loads every older page; the DOM stays bounded.
    await list.focus();
    // (Home scrolls smoothly; each press reaches the top of what is loaded, which loads a page.)
    const atOldest = async () =>
      (await list.getByText('message 0', { exact: true }).isVisible()) &&
      (await list.evaluate((el) => el.scrollTop)) === 0;
    for (let i = 0; i < 100 && !(await atOldest()); i++) {
      await page.keyboard.press('Home');
      await page.waitForTimeout(200);
    }
    await expect(list.getByText('message 0', { exact: true })).toBeInViewport();
    expect(await bubbles(page).count()).toBeLessThanOrEqual(MAX_NODES);

    // Scrolled up, a new message does not move the view: a button offers it.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'while scrolled up' });
    const unseen = page.getByRole('button', { name: '1 new message' });
    await expect(unseen).toBeVisible({ timeout: 10_000 });
    await expect(list.getByText('message 0', { exact: true })).toBeInViewport();
    await shot('thread-new-messages-button-1280');
    await unseen.click();
    await expect(list.getByText('while scrolled up', { exact: true })).toBeInViewport();
    await expect(unseen).toHaveCount(0);

    // At the bottom, a new message is followed.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'at the bottom' });
    await expect(list.getByText('at the bottom', { exact: true })).toBeInViewport({ timeout: 10_000 });
    await expect(page.getByRole('button', { name: /new message/ })).toHaveCount(0);
    expect(await bubbles(page).count()).toBeLessThanOrEqual(MAX_NODES);

    for (const [width, height] of [
      [1280, 800],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await expect(list.getByText('at the bottom', { exact: true })).toBeInViewport();
        box = await layout(page);
        expect(box.composerBottom).toBeLessThanOrEqual(box.windowHeight);
        expect(box.composerBottom).toBeGreaterThan(box.windowHeight - 60);
        await page.screenshot({ path: testInfo.outputPath(`thread-${width}x${height}-${scheme}.png`) });
        await axe(page, `${width}x${height} ${scheme}`);
      }
    }
  });
});
