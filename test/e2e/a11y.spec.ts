// Accessibility audit (axe-core) of every screen in the list below, each with real content and
// each in light and in dark: no violation of impact serious or critical. Dark runs twice: through
// the system preference and through the theme switch. Each screenshot and axe report lands in the
// test's output folder.
import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import {
  AGENTS,
  agentHash,
  agentRow,
  consoleHash,
  control,
  hostCall,
  LABELS,
  open,
  shooter,
  useDemoServe,
  useServe,
  type Suite,
} from './support/kit';

type Scheme = 'light' | 'dark';

/** Each scheme as the system preference ('system' theme), and dark once more as the explicit theme. */
const MODES: { name: string; scheme: Scheme; theme: 'system' | 'dark' }[] = [
  { name: 'light', scheme: 'light', theme: 'system' },
  { name: 'dark', scheme: 'dark', theme: 'system' },
  { name: 'dark-theme-switch', scheme: 'light', theme: 'dark' },
];
type Mode = (typeof MODES)[number];

async function audit(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await shooter(page, testInfo)(name);
  const results = await new AxeBuilder({ page }).analyze();
  const report = {
    passes: results.passes.map((p) => p.id),
    incomplete: results.incomplete.map((i) => ({
      id: i.id,
      nodes: i.nodes.map((n) => `${n.target.join(' ')}: ${n.any.map((a) => a.message).join('; ')}`),
    })),
    violations: results.violations,
  };
  await writeFile(testInfo.outputPath(`axe-${name}.json`), JSON.stringify(report, null, 2));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const said = bad
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')} — ${n.failureSummary ?? ''}`).join('\n')}`,
    )
    .join('\n');
  expect.soft(bad, `axe violations on ${name}:\n${said}`).toEqual([]);
}

/**
 * The scheme, and the theme this browser chose locally. The app settings go back to 'system' first:
 * a theme switch saves its choice there (and the saved theme wins), which would carry over to the
 * next test.
 */
async function setMode(page: Page, suite: Suite, mode: Mode): Promise<void> {
  await hostCall(suite.ready, 'settings.update', { patch: { theme: 'system' } });
  await page.emulateMedia({ colorScheme: mode.scheme });
  await page.addInitScript((theme) => window.localStorage.setItem('cc.theme', theme), mode.theme);
}

async function expectTheme(page: Page, mode: Mode): Promise<void> {
  const bg = mode.theme === 'dark' || mode.scheme === 'dark' ? 'rgb(23, 24, 26)' : 'rgb(247, 247, 245)';
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(bg);
}

interface Screen {
  name: string;
  /** Set-up on the emulator before the page opens. */
  before?: (suite: Suite) => Promise<void>;
  hash(suite: Suite): string;
  /** Brings the screen to the content under audit; `tag` keeps what it types apart per mode. */
  ready(page: Page, suite: Suite, tag: string): Promise<void>;
}

const REPLY = [
  '### Order **#4521** shipped',
  '',
  '| Item | Qty | Price |',
  '|:--|:-:|--:|',
  '| Blue mug | 2 | $18.00 |',
  '',
  '- [x] Paid',
  '- [ ] Delivered',
  '',
  '> Track it at [the carrier](https://example.com/track) or ask me: `status 4521`.',
  '',
  '```ts',
  'const total = (n: number): string => `$${n.toFixed(2)}`; // price',
  '```',
].join('\n');

/** Starts a new conversation of one's own in the chat screen, sends `text` and waits for the reply to start. */
async function newConversation(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.locator('li.chat-agent').last()).toBeVisible({ timeout: 10_000 });
}

const SCREENS: Screen[] = [
  {
    name: 'agents-home',
    hash: () => '#/',
    ready: async (page) => {
      await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
      await expect(page.locator('ul.agents')).not.toContainText('Not checked yet', { timeout: 10_000 });
    },
  },
  {
    name: 'not-answering',
    hash: () => '#/',
    ready: async (page) => {
      await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
      // The host stops answering this page (every new request fails), as when serve is killed.
      await page.route('**/api/**', (route) => route.abort());
      await expect(page.getByRole('region', { name: /The companion is not answering/ })).toBeVisible({
        timeout: 10_000,
      });
      await expect(page.locator('ul.agents')).toContainText('Unknown');
    },
  },
  {
    name: 'agents-home-with-notices',
    hash: () => '#/',
    ready: async (page, suite) => {
      await expect(page.locator('ul.agents > li')).toHaveCount(3, { timeout: 15_000 });
      // The emulator is back to its seed after every test: unlink only once the monitor has seen the
      // agent connected again, so the unlink is a new change that raises a notice.
      await expect(agentRow(page, AGENTS.connected)).toContainText('Connected', { timeout: 15_000 });
      await control(suite, `agents/${AGENTS.connected}/unlink`);
      await expect(page.locator('.toasts li.toast').first()).toBeVisible({ timeout: 10_000 });
    },
  },
  {
    name: 'agent-page',
    hash: (suite) => agentHash(suite, AGENTS.connected),
    ready: async (page) => {
      await expect(page.locator('dt:text-is("connected") + dd')).toHaveText('true', { timeout: 10_000 });
      await expect(page.getByRole('img', { name: /QR code that opens a WhatsApp chat/ })).toBeVisible();
    },
  },
  {
    name: 'pairing',
    hash: (suite) => agentHash(suite, AGENTS.unlinked, 'pairing'),
    ready: async (page) => {
      await page.getByRole('button', { name: 'Start pairing' }).click({ timeout: 10_000 });
      await expect(page.getByRole('img', { name: `Pairing QR code for ${LABELS.unlinked}` })).toBeVisible({
        timeout: 10_000,
      });
      await expect(page.getByRole('meter', { name: /Time left to scan/ })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Cancel' })).toBeVisible();
    },
  },
  {
    name: 'alerts',
    hash: () => '#/alerts',
    ready: async (page) => {
      await expect(page.locator('ul.incidents > li')).not.toHaveCount(0, { timeout: 10_000 });
      await expect(page.getByRole('button', { name: 'Save quiet hours' })).toBeVisible();
    },
  },
  {
    name: 'settings',
    hash: () => '#/settings',
    ready: async (page) => {
      await expect(page.getByRole('article', { name: /^Team / })).toBeVisible({ timeout: 10_000 });
      await expect(page.getByRole('textbox', { name: 'Poll interval (seconds)' })).toBeVisible();
    },
  },
  {
    name: 'agent-settings',
    hash: (suite) => agentHash(suite, AGENTS.connected, 'settings'),
    ready: async (page) => {
      await expect(page.getByRole('switch', { name: /Answer in groups/ })).toBeVisible({ timeout: 10_000 });
    },
  },
  {
    name: 'chat',
    before: async (suite) => {
      await control(suite, `agents/${AGENTS.connected}/chat-script`, {
        reply: REPLY,
        tokenDelayMs: 10,
        actions: [{ name: 'lookup_order' }],
      });
    },
    hash: (suite) => agentHash(suite, AGENTS.connected, 'chat'),
    ready: async (page) => {
      await page.getByLabel('Message', { exact: true }).fill('Where is my order?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('li.chat-agent').last()).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
      await expect(page.locator('li.chat-agent').last().locator('pre[data-highlighted="true"]')).toBeVisible();
      await page.getByLabel('Show raw stream frames').check();
      await expect(page.locator('.chat-frames li').first()).toBeVisible();
    },
  },
  {
    name: 'chat-queue',
    before: async (suite) => {
      await control(suite, `agents/${AGENTS.connected}/chat-script`, {
        tokens: Array.from({ length: 150 }, (_, i) => `step ${i}, `),
        tokenDelayMs: 80,
      });
    },
    hash: (suite) => agentHash(suite, AGENTS.connected, 'chat'),
    ready: async (page, _suite, tag) => {
      await newConversation(page, `Plan my week (${tag})`);
      await expect(page.locator('li.chat-agent').last()).toHaveAttribute('data-status', 'streaming');
      await page.getByLabel('Message', { exact: true }).fill('And my weekend');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await expect(page.locator('li.chat-queued')).toBeVisible();
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel('Conversation name').fill('Week plan');
    },
  },
  {
    name: 'chat-delete',
    before: async (suite) => {
      await control(suite, `agents/${AGENTS.connected}/chat-script`, {
        reply: 'Done: your **refund** is on its way.',
        tokenDelayMs: 5,
      });
    },
    hash: (suite) => agentHash(suite, AGENTS.connected, 'chat'),
    ready: async (page, _suite, tag) => {
      await newConversation(page, `Refund order 4521 (${tag})`);
      await expect(page.locator('li.chat-agent').last()).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('refund');
      await expect(page.locator('button.chat-conv[aria-current="true"]')).toBeVisible();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect(page.getByRole('button', { name: 'Delete conversation' })).toBeVisible();
    },
  },
  {
    name: 'console',
    hash: (suite) => consoleHash(suite, AGENTS.connected),
    ready: async (page, _suite, tag) => {
      await page.getByLabel(/^To \(phone number/).fill('+15550102000');
      await page.getByLabel('Message', { exact: true }).fill(`Hello from the ${tag} run`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('table.send-history tbody tr').first()).toHaveAttribute('data-state', 'sent');
      await expect(page.locator('.send-meter')).toBeVisible();
      // A failure notice on screen too (409: needs a QR scan), and an invalid number.
      await page.getByRole('combobox', { name: /Agent/ }).selectOption(AGENTS.unlinked);
      await page.getByLabel('Message', { exact: true }).fill('Are you there?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.locator('.send-confirm').getByRole('button', { name: 'Send anyway' }).click();
      await expect(page.locator('.send-error')).toContainText('Needs a QR scan');
      await page.getByLabel(/^To \(phone number/).fill('12ab');
      await expect(page.getByText('contains letters')).toBeVisible();
      // A number the contact check says is not on WhatsApp: the warning before sending.
      await page.getByRole('combobox', { name: /Agent/ }).selectOption(AGENTS.connected);
      await page.getByLabel(/^To \(phone number/).fill('+15550109999');
      await page.getByRole('button', { name: /Check contact/ }).click();
      await expect(page.locator('.contact-no')).toBeVisible();
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(page.locator('.send-confirm')).toBeVisible();
    },
  },
  {
    name: 'tunnel',
    hash: () => '#/tunnel',
    ready: async (page, suite, tag) => {
      await expect(page.locator('.tunnel-facts')).toContainText('Listening', { timeout: 10_000 });
      // A registered webhook (its signing secret) lets the tunnel sign a simulated delivery.
      const { listenUrl } = await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status');
      await hostCall(suite.ready, 'webhook.register', {
        teamId: suite.teamId,
        agentId: AGENTS.connected,
        publicUrl: `${listenUrl}/hooks/${AGENTS.connected}`,
      });
      const settings = page.getByRole('group', { name: 'Tunnel settings' });
      await settings.getByRole('button', { name: 'Simulate a message' }).click();
      const sim = page.locator('form.simulate');
      await sim.getByLabel('Text', { exact: true }).fill(`hello ${tag}`);
      await sim.getByRole('button', { name: 'Simulate' }).click();
      const row = page.locator('ul.reqs button.req').filter({ hasText: `hello ${tag}` });
      await expect(row).toHaveCount(1);
      await row.click();
      await expect(
        page.getByRole('region', { name: 'Selected request' }).getByRole('list', { name: 'Body' }),
      ).toContainText(`hello ${tag}`);
      // The public URL panel, with the tunnel-command choice and the agents to register.
      await settings.getByRole('button', { name: 'Public URL' }).click();
      await page.getByRole('radio', { name: /My own tunnel command/ }).check();
      await expect(page.getByLabel('Command', { exact: true })).toBeVisible();
    },
  },
];

test.describe('a11y: screens with the demo team', () => {
  const suite = useDemoServe();
  for (const screen of SCREENS) {
    for (const mode of MODES) {
      test(`${screen.name}, ${mode.name}: no serious or critical axe violations`, async ({ page }, testInfo) => {
        await setMode(page, suite, mode);
        await screen.before?.(suite);
        await open(page, suite, screen.hash(suite));
        await screen.ready(page, suite, mode.name);
        await expectTheme(page, mode);
        await audit(page, testInfo, `${screen.name}-${mode.name}`);
      });
    }
  }
});

test.describe('a11y: onboarding with no teams', () => {
  const suite = useServe(['--emulator', '--no-demo-team']);
  for (const mode of MODES) {
    test(`onboarding, ${mode.name}: no serious or critical axe violations`, async ({ page }, testInfo) => {
      await setMode(page, suite, mode);
      await open(page, suite);
      await expect(page.getByRole('heading', { level: 2, name: 'Welcome' })).toBeVisible({ timeout: 10_000 });
      await expectTheme(page, mode);
      await audit(page, testInfo, `onboarding-${mode.name}`);
      // Empty required fields, each marked with its message.
      await page.getByRole('button', { name: 'Add team' }).click();
      await expect(page.locator('form [aria-invalid="true"]')).toHaveCount(3);
      await audit(page, testInfo, `onboarding-empty-${mode.name}`);
      // The same form with an error shown (a wrong key) must hold up too.
      await page.getByLabel('Team name').fill('A11y team');
      await page.getByLabel('Service address').fill(suite.emulator.baseUrl);
      await page.getByLabel('Team API key').fill('wrong-key-for-a11y');
      await page.getByLabel(/^Agent IDs/).fill(AGENTS.connected);
      await page.getByRole('button', { name: 'Add team' }).click();
      await expect(page.getByRole('alert')).toContainText('key rejected', { timeout: 10_000 });
      await audit(page, testInfo, `onboarding-error-${mode.name}`);
    });
  }
});
