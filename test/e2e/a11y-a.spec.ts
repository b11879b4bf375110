// Accessibility audit (axe-core) of agents home, an agent page, pairing (with its QR), alerts,
// settings, and onboarding (no teams yet), each in light and in dark: no violation of impact
// serious or critical. The dark runs go through the system preference and through the theme switch.
import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { AGENTS, agentHash, LABELS, open, resetEmulator, shooter, useServe, type Suite } from './support/screens-a';

type Scheme = 'light' | 'dark';

/** Each scheme as the system preference ('system' theme), and dark once more as the explicit theme. */
const MODES: { name: string; scheme: Scheme; theme: 'system' | 'dark' }[] = [
  { name: 'light', scheme: 'light', theme: 'system' },
  { name: 'dark', scheme: 'dark', theme: 'system' },
  { name: 'dark-theme-switch', scheme: 'light', theme: 'dark' },
];

async function audit(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await shooter(page, testInfo)(name);
  const results = await new AxeBuilder({ page }).analyze();
  const report = {
    passes: results.passes.map((p) => p.id),
    incomplete: results.incomplete.map((i) => ({ id: i.id, nodes: i.nodes.map((n) => `${n.target.join(' ')}: ${n.any.map((a) => a.message).join('; ')}`) })),
    violations: results.violations,
  };
  await writeFile(testInfo.outputPath(`axe-${name}.json`), JSON.stringify(report, null, 2));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const said = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')} — ${n.failureSummary ?? ''}`).join('\n')}`).join('\n');
  expect.soft(bad, `axe violations on ${name}:\n${said}`).toEqual([]);
}

async function setMode(page: Page, mode: (typeof MODES)[number]): Promise<void> {
  await page.emulateMedia({ colorScheme: mode.scheme });
  await page.addInitScript((theme) => window.localStorage.setItem('cc.theme', theme), mode.theme);
}

async function expectTheme(page: Page, scheme: Scheme): Promise<void> {
  const bg = scheme === 'dark' ? 'rgb(23, 24, 26)' : 'rgb(247, 247, 245)';
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(bg);
}

function screens(suite: Suite): { name: string; hash: string; ready: (page: Page) => Promise<void> }[] {
  return [
    {
      name: 'agents-home',
      hash: '#/',
      ready: async (page) => {
        await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
        await expect(page.locator('ul.agents')).not.toContainText('Not checked yet', { timeout: 10_000 });
      },
    },
    {
      name: 'agent-page',
      hash: agentHash(suite, AGENTS.connected),
      ready: async (page) => {
        await expect(page.locator('dt:text-is("connected") + dd')).toHaveText('true', { timeout: 10_000 });
        await expect(page.getByRole('img', { name: /QR code that opens a WhatsApp chat/ })).toBeVisible();
      },
    },
    {
      name: 'pairing',
      hash: agentHash(suite, AGENTS.unlinked, 'pairing'),
      ready: async (page) => {
        await page.getByRole('button', { name: 'Start pairing' }).click({ timeout: 10_000 });
        await expect(page.getByRole('img', { name: `Pairing QR code for ${LABELS.unlinked}` })).toBeVisible({ timeout: 10_000 });
      },
    },
    {
      name: 'alerts',
      hash: '#/alerts',
      ready: async (page) => {
        await expect(page.locator('ul.incidents > li')).not.toHaveCount(0, { timeout: 10_000 });
        await expect(page.getByRole('button', { name: 'Save quiet hours' })).toBeVisible();
      },
    },
    {
      name: 'settings',
      hash: '#/settings',
      ready: async (page) => {
        await expect(page.getByRole('article', { name: /^Team / })).toBeVisible({ timeout: 10_000 });
        await expect(page.getByRole('textbox', { name: 'Poll interval (seconds)' })).toBeVisible();
      },
    },
    {
      name: 'agent-settings',
      hash: agentHash(suite, AGENTS.connected, 'settings'),
      ready: async (page) => {
        await expect(page.getByRole('switch', { name: /Answer in groups/ })).toBeVisible({ timeout: 10_000 });
      },
    },
  ];
}

test.describe('a11y: screens with the demo team', () => {
  const suite = useServe();
  test.afterEach(async () => {
    await resetEmulator(suite);
  });
  for (const mode of MODES) {
    test(`no serious or critical axe violations, ${mode.name}`, async ({ page }, testInfo) => {
      await setMode(page, mode);
      for (const screen of screens(suite)) {
        await open(page, suite, screen.hash);
        await screen.ready(page);
        await expectTheme(page, mode.theme === 'dark' ? 'dark' : mode.scheme);
        await audit(page, testInfo, `${screen.name}-${mode.name}`);
      }
    });
  }
});

test.describe('a11y: onboarding with no teams', () => {
  const suite = useServe(['--emulator', '--no-demo-team']);
  for (const mode of MODES) {
    test(`no serious or critical axe violations, ${mode.name}`, async ({ page }, testInfo) => {
      await setMode(page, mode);
      await open(page, suite);
      await expect(page.getByRole('heading', { level: 2, name: 'Welcome' })).toBeVisible({ timeout: 10_000 });
      await expectTheme(page, mode.theme === 'dark' ? 'dark' : mode.scheme);
      await audit(page, testInfo, `onboarding-${mode.name}`);
      // The same form with an error shown (a wrong key) must hold up too.
      await page.getByLabel('Team name').fill('A11y team');
      await page.getByLabel('Service address').fill(suite.ready.emulator!.baseUrl);
      await page.getByLabel('Team API key').fill('wrong-key-for-a11y');
      await page.getByLabel(/^Agent IDs/).fill('agent-connected');
      await page.getByRole('button', { name: 'Add team' }).click();
      await expect(page.getByRole('alert')).toContainText('key rejected', { timeout: 10_000 });
      await audit(page, testInfo, `onboarding-error-${mode.name}`);
    });
  }
});
