// Issue "The UI", accessibility of the chat, console and tunnel screens with real content (a streamed
// reply, a send in the history, a delivery selected), in light and dark: axe finds no serious or
// critical violation. Screenshots of each screen in each theme land in the output folder.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { chatHash, consoleHash, control, hostCall, openRoute, shooter, skipReason, startDemo, useTheme, type Demo, type Theme } from './support/screens-b';

const AGENT = 'agent-connected';
const TO = '+15550102000';

let demo: Demo;

async function axeSerious(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return res.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary?.replace(/\n/g, ' ')}`).join('\n  ')}`);
}

test.describe('chat, console and tunnel pass axe in light and dark', () => {
  test.skip(skipReason !== null, skipReason ?? '');

  test.beforeAll(async () => {
    demo = await startDemo();
    await control(demo, `agents/${AGENT}/chat-script`, {
      tokens: ['Your ', 'order ', '**#4521** ', 'shipped. ', 'Track it ', 'at ', '[the carrier](https://example.com/track) ', 'or ', 'ask ', 'me: ', '`status 4521`.'],
      tokenDelayMs: 20,
      actions: [{ name: 'lookup_order' }],
    });
  });
  test.afterAll(async () => {
    const code = await demo?.stop();
    expect(code, 'serve stops cleanly').toBe(0);
  });

  for (const theme of ['light', 'dark'] as Theme[]) {
    test(`chat with a streamed reply (${theme})`, async ({ page }, testInfo) => {
      const shot = shooter(page, testInfo);
      await useTheme(page, theme);
      await openRoute(page, demo.ready, chatHash(demo.teamId, AGENT));
      await page.getByLabel('Message', { exact: true }).fill('Where is my order?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('li.chat-agent').last()).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
      await page.getByLabel('Show raw stream frames').check();
      await expect(page.locator('.chat-frames li').first()).toBeVisible();
      await shot(`chat-${theme}`);
      expect(await axeSerious(page)).toEqual([]);
    });

    test(`console with a send in the history and an error (${theme})`, async ({ page }, testInfo) => {
      const shot = shooter(page, testInfo);
      await useTheme(page, theme);
      await openRoute(page, demo.ready, consoleHash(demo.teamId, AGENT));
      await page.getByLabel(/^To \(phone number/).fill(TO);
      await page.getByLabel('Message', { exact: true }).fill(`Hello from the ${theme} theme`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('table.send-history tbody tr').first()).toHaveAttribute('data-state', 'sent');
      await expect(page.locator('.send-meter')).toBeVisible();
      // A failure notice on screen too (409: needs a QR scan), and an invalid number.
      await page.getByRole('combobox', { name: /Agent/ }).selectOption('agent-unlinked');
      await page.getByLabel('Message', { exact: true }).fill('Are you there?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('.send-error')).toContainText('Needs a QR scan');
      await page.getByLabel(/^To \(phone number/).fill('12ab');
      await expect(page.getByText('contains letters')).toBeVisible();
      await shot(`console-${theme}`);
      expect(await axeSerious(page)).toEqual([]);
    });

    test(`tunnel with a delivery selected (${theme})`, async ({ page }, testInfo) => {
      const shot = shooter(page, testInfo);
      await useTheme(page, theme);
      await openRoute(page, demo.ready, '#/tunnel');
      await expect(page.locator('.tunnel-facts')).toContainText('Listening', { timeout: 10_000 });
      // A registered webhook (its signing secret) lets the tunnel sign a simulated delivery.
      const { listenUrl } = await hostCall<{ listenUrl: string }>(demo.ready, 'tunnel.status');
      await hostCall(demo.ready, 'webhook.register', { teamId: demo.teamId, agentId: AGENT, publicUrl: `${listenUrl}/hooks/${AGENT}` });
      const sim = page.locator('form').filter({ has: page.getByRole('heading', { name: /Simulate/ }) });
      await sim.getByLabel('Text', { exact: true }).fill(`hello ${theme}`);
      await sim.getByRole('button', { name: 'Simulate' }).click();
      const row = page.locator('table.delivery-table tbody tr').filter({ hasText: `hello ${theme}` });
      await expect(row).toHaveCount(1);
      await row.getByRole('button', { name: /Details of delivery/ }).click();
      await expect(page.locator('.delivery-detail').getByLabel('Raw body')).toContainText(`hello ${theme}`);
      await shot(`tunnel-${theme}`);
      expect(await axeSerious(page)).toEqual([]);
    });
  }
});
