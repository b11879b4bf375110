// Agent labels in Chromium against `serve --emulator` (the demo team): the agent page's Labels editor adds
// several at once, refuses a bad one in words and removes one by keyboard; the Agents screen shows each row's
// chips and filters by label beside health; at 1024 × 700 and 1280 × 800 nothing overflows; axe finds nothing
// serious on either screen.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { hostCall } from './support/serve';
import { AGENTS, agentHash, agentRow, LABELS, open, shooter, useDemoServe } from './support/kit';

async function noSeriousViolations(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const said = bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');
  expect.soft(bad, `axe violations on ${name}:\n${said}`).toEqual([]);
}

async function fitsTheWidth(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test.describe('agent labels', () => {
  const suite = useDemoServe();

  test('edit an agent’s labels on its page, see them on its row, filter the Agents screen by one', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await page.setViewportSize({ width: 1280, height: 800 });
    // Another agent labelled through the contract (as another window or the CLI would).
    await hostCall(suite.ready, 'agents.setLabels', {
      teamId: suite.teamId,
      agentId: AGENTS.flaky,
      labels: ['eu-west', 'billing', 'tier.2', 'night-shift'],
    });

    await open(page, suite, agentHash(suite, AGENTS.connected));
    await expect(page.getByRole('heading', { level: 2, name: LABELS.connected })).toBeVisible();
    const card = page.getByRole('region', { name: 'Labels' });
    await expect(card).toContainText('No labels yet.');
    const input = card.getByLabel('Add labels');

    // A bad label is said under the field and nothing is sent.
    await input.fill('Not OK!');
    await input.press('Enter');
    await expect(card.getByRole('alert')).toContainText('"OK!"');
    await expect(input).toHaveAttribute('aria-invalid', 'true');

    // Several at once, typed in any case.
    await input.fill('Billing, VIP eu-west');
    await input.press('Enter');
    const chips = card.getByRole('list', { name: 'Labels of this agent' }).getByRole('listitem');
    await expect(chips).toHaveText(['billing×', 'eu-west×', 'vip×']);
    await expect(input).toHaveValue('');
    await noSeriousViolations(page, 'agent page');
    await shot('agent-labels-1280');
    await page.setViewportSize({ width: 1024, height: 700 });
    await fitsTheWidth(page);
    await shot('agent-labels-1024');

    // Removed by keyboard: the chip's button takes Tab focus and Enter.
    const remove = card.getByRole('button', { name: 'Remove label vip' });
    await remove.focus();
    await page.keyboard.press('Enter');
    await expect(chips).toHaveText(['billing×', 'eu-west×']);

    // The Agents screen: chips on the rows, a label filter beside health.
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite);
    const rows = page.locator('ul.agents > li');
    await expect(rows).toHaveCount(3, { timeout: 15_000 });
    await expect(
      agentRow(page, AGENTS.connected).getByRole('list', { name: 'Labels: billing, eu-west' }),
    ).toBeVisible();
    await expect(agentRow(page, AGENTS.flaky).locator('.label-chip')).toHaveText([
      'billing',
      'eu-west',
      'night-shift',
      '+1',
    ]);
    const labelFilter = page.getByLabel('Label', { exact: true });
    await expect(labelFilter.locator('option')).toHaveText([
      'Any label',
      'billing (2)',
      'eu-west (2)',
      'night-shift (1)',
      'tier.2 (1)',
    ]);
    await labelFilter.selectOption('tier.2');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(LABELS.flaky);
    await expect(page.getByRole('status').filter({ hasText: 'of 3 agents' })).toHaveText('1 of 3 agents');
    await labelFilter.selectOption('billing');
    await expect(rows).toHaveCount(2);
    await noSeriousViolations(page, 'agents filtered by label');
    await shot('agents-by-label-1280');
    await page.setViewportSize({ width: 1024, height: 700 });
    await fitsTheWidth(page);
    // Each row's chips stay on the row's own lines: the actions are not pushed out of it.
    for (const r of await rows.all()) {
      const [row, actions] = [await r.boundingBox(), await r.locator('.agent-actions').boundingBox()];
      expect(actions!.x + actions!.width).toBeLessThanOrEqual(row!.x + row!.width + 1);
    }
    await shot('agents-by-label-1024');
    await labelFilter.selectOption('');
    await expect(rows).toHaveCount(3);
  });
});
