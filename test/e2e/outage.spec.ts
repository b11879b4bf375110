// The service unreachable (the emulator resets every connection), in Chromium against
// `serve --emulator` (the demo team), shot at 1280 and 1024 px, light and dark, axe-clean: the
// agent page's Session card and the pairing screen say one thing (the error, with when the session
// was last read or that it never was; never "Asking…" or "Read just now" beside it); the agents
// list marks every agent unreachable but keeps each one's last known state and the actions that go
// with it (Pair for the agent that needed a scan).
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  AGENTS,
  agentHash,
  agentRow,
  control,
  LABELS,
  open,
  shooterAcross,
  useDemoServe,
  type Suite,
} from './support/kit';

/** Every connection to the service reset, for long enough for the whole test. */
const OUTAGE = { kind: 'reset', durationMs: 60_000 };

async function expectAxeClean(page: Page): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      `axe, ${scheme}`,
    ).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

function outage(suite: Suite): Promise<unknown> {
  return control(suite, '/faults', OUTAGE);
}

test.describe('service unreachable', () => {
  const suite = useDemoServe({ clearFaults: true });

  test('agent page: the Session card shows the error with when the session was last read, nothing else', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    await open(page, suite, agentHash(suite, AGENTS.connected));
    const card = page
      .locator('section.card')
      .filter({ has: page.getByRole('heading', { name: 'Session, as the service reports it' }) });
    await expect(card.getByText(/^Read /)).toBeVisible({ timeout: 10_000 });

    await outage(suite);
    await expect(card.getByRole('alert')).toBeVisible({ timeout: 20_000 });
    await expect(card.getByText(/^Last read .+; what follows is from then\.$/)).toBeVisible();
    await expect(card.getByText('Asking the service…')).toHaveCount(0);
    await expect(card.getByText(/^Read /)).toHaveCount(0);
    // The last session read stays, under that line.
    await expect(card.locator('dl.fields')).toContainText('connected');
    await shots('agent-page-error');
    await expectAxeClean(page);
  });

  test('pairing screen opened during the outage: the error and that the session was never read, no "Asking…"', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    await outage(suite);
    await open(page, suite, agentHash(suite, AGENTS.unlinked, 'pairing'));
    await expect(page.getByRole('heading', { level: 2, name: `Pair ${LABELS.unlinked}` })).toBeVisible();
    const main = page.locator('main');
    await expect(main.getByRole('alert')).toBeVisible({ timeout: 20_000 });
    await expect(main.getByText('The session has not been read yet.')).toBeVisible();
    // Polled every 1.5 s: a read in flight never brings "Asking…" back beside the error.
    for (let i = 0; i < 4; i++) {
      await expect(main.getByText('Asking the service for the session…')).toHaveCount(0);
      await page.waitForTimeout(500);
    }
    await expect(main.getByRole('alert')).toBeVisible();
    await shots('pairing-error');
    await expectAxeClean(page);
  });

  test('agents list: every agent unreachable, each with its last known state and the actions of that state', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    await open(page, suite);
    const unlinked = agentRow(page, AGENTS.unlinked);
    const connected = agentRow(page, AGENTS.connected);
    await expect(unlinked).toContainText('Needs a QR scan', { timeout: 15_000 });
    await expect(connected).toContainText('Connected');

    await outage(suite);
    const rows = page.locator('ul.agents > li');
    await expect(rows.filter({ hasText: 'Unreachable' })).toHaveCount(3, { timeout: 30_000 });
    const badge = (row: Locator) => row.locator('.agent-health');
    await expect(badge(unlinked)).toHaveText(/Unreachable/);
    await expect(unlinked.locator('.agent-last-known')).toHaveText(/^last known: .*Needs a QR scan$/);
    await expect(unlinked.getByRole('link', { name: `Pair ${LABELS.unlinked}` })).toBeVisible();
    await expect(unlinked.getByRole('link', { name: `Chat with ${LABELS.unlinked}` })).toHaveCount(0);
    await expect(badge(connected)).toHaveText(/Unreachable/);
    await expect(connected.locator('.agent-last-known')).toHaveText(/^last known: .*Connected$/);
    await expect(connected.getByRole('link', { name: `Chat with ${LABELS.connected}` })).toBeVisible();
    await expect(connected.getByRole('link', { name: `Pair ${LABELS.connected}` })).toHaveCount(0);
    await shots('agents-outage');
    await expectAxeClean(page);
  });
});
