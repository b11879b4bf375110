// Keyboard focus, in Chromium against `serve --emulator` (the demo team): it never falls to <body>
// when the control holding it goes away. Start pairing → the QR block; a conversation renamed with
// Enter → its title under the new name; a conversation deleted → the title of the one shown in its
// place; a notice dismissed with Enter → the notice that takes its
// place, then the notices region; the tunnel screen on its first visit, its chunk arriving late →
// its heading once it has rendered.
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, agentHash, control, hostCall, LABELS, open, openChatAsNewCustomer, useDemoServe } from './support/kit';

/** The focused element in words (tag, id, class), for messages. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el
      ? `${el.tagName}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).replace(/\s+/g, '.')}` : ''}`
      : 'none';
  });
}

async function expectNotOnBody(page: Page): Promise<void> {
  await expect.poll(() => focused(page)).not.toMatch(/^BODY/);
}

test.describe('focus', () => {
  const suite = useDemoServe();

  test('Enter on "Start pairing": focus goes to what replaced the button, then to the QR block', async ({ page }) => {
    await open(page, suite, agentHash(suite, AGENTS.unlinked, 'pairing'));
    const start = page.getByRole('button', { name: 'Start pairing' });
    await expect(start).toBeVisible({ timeout: 10_000 });
    await start.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('img', { name: `Pairing QR code for ${LABELS.unlinked}` })).toBeVisible({
      timeout: 10_000,
    });
    await expect(page.locator('main .pairing')).toBeFocused();
    // Tab goes on from there, into the block.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Cancel' })).toBeFocused();
  });

  test('a conversation renamed with Enter: focus on its title, under the new name', async ({ page }) => {
    await openChatAsNewCustomer(page, suite, AGENTS.connected);
    const rename = page.getByRole('button', { name: 'Rename' });
    await rename.focus();
    await page.keyboard.press('Enter');
    const input = page.getByLabel('Conversation name');
    await expect(input).toBeFocused();
    await page.keyboard.type('Refund question');
    await page.keyboard.press('Enter');
    const title = page.getByRole('heading', { level: 3, name: 'Refund question' });
    await expect(title).toBeVisible();
    await expect(title).toBeFocused();

    // Escape out of the form: the same.
    await rename.focus();
    await page.keyboard.press('Enter');
    await expect(input).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(title).toBeFocused();
  });

  test('a conversation deleted with the keyboard: focus on the title of the conversation shown in its place', async ({
    page,
  }) => {
    await control(suite, `agents/${AGENTS.connected}/chat-script`, { reply: 'Noted.', tokenDelayMs: 5 });
    await openChatAsNewCustomer(page, suite, AGENTS.connected);
    await page.getByLabel('Message', { exact: true }).fill('A conversation to delete');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('li.chat-agent').last()).toHaveAttribute('data-status', 'done', { timeout: 15_000 });
    await expect(page.getByRole('heading', { level: 3, name: 'A conversation to delete' })).toBeVisible();
    await page.getByRole('button', { name: 'Delete', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Delete conversation' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 3, name: 'A conversation to delete' })).toHaveCount(0);
    await expect(page.locator('#chat-conv-name')).toBeFocused();
    await expectNotOnBody(page);
  });

  test('a notice dismissed with Enter: focus on the notice in its place, then on the notices region', async ({
    page,
  }) => {
    await open(page, suite);
    await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
    // Two agents that need a scan: an urgent notice each (urgent notices stay until dismissed).
    for (const agentId of ['agent-focus-1', 'agent-focus-2']) {
      await control(suite, 'teams/demo/agents', { agentId, label: `Focus ${agentId.slice(-1)}`, state: 'unlinked' });
      await hostCall(suite.ready, 'agents.add', { teamId: suite.teamId, agentId, label: `Focus ${agentId.slice(-1)}` });
    }
    const region = page.getByRole('status', { name: 'Notifications' });
    const toasts = region.locator('li.toast');
    await expect.poll(() => toasts.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const first = toasts.first().getByRole('button', { name: /^Dismiss: / });
    const firstName = await first.getAttribute('aria-label');
    await first.focus();
    await page.keyboard.press('Enter');
    await expect(region.getByRole('button', { name: firstName!, exact: true })).toHaveCount(0);
    // The notice now in the first place has focus.
    await expect(toasts.first().getByRole('button', { name: /^Dismiss: / })).toBeFocused();
    // Dismissed one by one with Enter: focus stays in the stack, and ends on the region.
    while ((await toasts.count()) > 0) {
      const name = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      expect(name).toMatch(/^Dismiss: /);
      await page.keyboard.press('Enter');
      await expect(region.getByRole('button', { name, exact: true })).toHaveCount(0);
      await expectNotOnBody(page);
    }
    await expect(region).toBeFocused();
  });

  test('the tunnel screen on its first visit, its chunk arriving late: focus on its heading once rendered', async ({
    page,
  }) => {
    // The lazily loaded screen is held back until the loading state has been checked: it arrives
    // well after the frames the route change waits for a heading.
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/Inspector-[^/]*\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    await open(page, suite);
    await expect(page.getByRole('heading', { level: 2, name: 'Agents' })).toBeVisible();
    await page.evaluate(() => (window.location.hash = '#/tunnel'));
    await expect(page.getByText('Loading the webhook tunnel…')).toBeVisible();
    // While it loads, focus waits on the main region (never on <body>).
    await expect(page.locator('main')).toBeFocused();
    release();
    await expect(page.getByRole('heading', { level: 2, name: 'Webhook tunnel' })).toBeFocused({ timeout: 10_000 });
  });
});
