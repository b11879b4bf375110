// Forms and their words, in Chromium against `serve --emulator`, each state shot at 1280 and 1024
// px, light and dark: "Add team" with empty fields marks each required field with its own message
// (on first run and in Settings, and so does "Add agent"); an error names the thing and never ends
// in an internal code; "Enable desktop notifications" says what the browser answered. (Quiet hours
// with the same start and end: alerts.spec.ts.)
import { expect, test, type Page } from '@playwright/test';
import { open, shooterAcross, useDemoServe, useServe } from './support/kit';

/** The texts an input's aria-describedby points at. */
async function describedBy(page: Page, label: string): Promise<string[]> {
  return page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? ''),
  );
}

const NO_CODE = /\([A-Z][A-Z_]{3,}\)/;

test.describe('first run: the team form', () => {
  const suite = useServe(['--emulator', '--no-demo-team']);

  test('"Add team" with empty fields marks each required field with its message and sends nothing', async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    const added: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/teams.add')) added.push(r.url());
    });
    await open(page, suite);
    await expect(page.getByRole('heading', { level: 2, name: 'Welcome' })).toBeVisible({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Add team' }).click();
    for (const [label, words] of [
      ['Team name', 'Give the team a name, e.g. Support.'],
      ['Service address', 'Give the service address, e.g. https://api.example.com.'],
      ['Team API key', "Paste the team's API key from the dashboard."],
    ] as const) {
      await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('aria-invalid', 'true');
      expect(await describedBy(page, label)).toContain(words);
      await expect(page.getByText(words)).toBeVisible();
    }
    await expect(page.getByLabel('Team name', { exact: true })).toBeFocused();
    await shots('add-team-empty');
    expect(added, 'nothing was sent').toEqual([]);

    // Filling a field takes its mark away; the rest stay marked.
    await page.getByLabel('Team name', { exact: true }).fill('Ops');
    await expect(page.getByLabel('Team name', { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel('Team API key', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    // An agent the service does not have: the message names it, with no internal code at the end.
    await page.getByLabel('Service address', { exact: true }).fill(suite.emulator.baseUrl);
    await page.getByLabel('Team API key', { exact: true }).fill(suite.emulator.apiKey);
    await page.getByLabel(/^Agent IDs/).fill('agent-x');
    await page.getByRole('button', { name: 'Add team' }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Agent "agent-x" was not found', { timeout: 10_000 });
    await expect(alert).not.toContainText(NO_CODE);
    await expect(alert).not.toContainText('does not know this item');
    await shots('add-team-unknown-agent');
  });
});

test.describe('forms with the demo team', () => {
  const suite = useDemoServe();

  test('"Add a team…" and "Add agent" in Settings mark their empty required fields too', async ({ page }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await open(page, suite, '#/settings');
    const addAgent = page.getByRole('form', { name: /^Add an agent to / });
    await addAgent.getByRole('button', { name: 'Add agent' }).click();
    await expect(addAgent.getByLabel('Agent ID')).toHaveAttribute('aria-invalid', 'true');
    await expect(addAgent.getByText('Give the agent ID from the dashboard, e.g. agent-support.')).toBeVisible();
    await expect(addAgent.getByLabel('Agent ID')).toBeFocused();
    await page.getByRole('button', { name: 'Add a team…' }).click();
    const form = page.locator('form', { has: page.getByLabel('Team API key') });
    await form.getByRole('button', { name: 'Add team' }).click();
    await expect(form.locator('[aria-invalid="true"]')).toHaveCount(3);
    await expect(form.getByLabel('Team name', { exact: true })).toBeFocused();
    await form.getByLabel('Team name', { exact: true }).scrollIntoViewIfNeeded();
    await shots('settings-add-team-empty');
  });

  test('"Enable desktop notifications" says what the browser answered', async ({ page }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await open(page, suite, '#/alerts');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Desktop notifications' }) });
    await expect(card.getByRole('button', { name: 'Enable desktop notifications' })).toBeVisible();
    // Note what the browser answers the page's request (headless Chromium may answer without asking).
    await page.evaluate(() => {
      const ask = Notification.requestPermission.bind(Notification);
      const w = window as unknown as { answered?: Promise<NotificationPermission> };
      Notification.requestPermission = () => (w.answered = ask());
    });
    await card.getByRole('button', { name: 'Enable desktop notifications' }).click();
    const answer = await page.evaluate(
      () => (window as unknown as { answered?: Promise<NotificationPermission> }).answered,
    );
    await expect(card.getByRole('status')).toContainText(`The browser answered “${answer}”`);
    await card.scrollIntoViewIfNeeded();
    await shots(`notifications-${answer}`);

    // Granted by the browser: said as such, and there is nothing to ask any more.
    await page.context().grantPermissions(['notifications']);
    await page.reload();
    await expect(card.getByRole('status')).toContainText('The browser answered “granted”', { timeout: 10_000 });
    await expect(card.getByRole('button', { name: 'Enable desktop notifications' })).toHaveCount(0);
  });
});
