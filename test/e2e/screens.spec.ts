// The tunnel and console screens at 1280×800 and 1024×700, light and dark, against `serve
// --emulator`: each state shot in all four looks with no serious or critical axe violation. The
// tunnel at 1024×700: the request list starts above the fold, no word (nor a hook URL) breaks across
// lines, replay without a forward address says it is a local setting and each disabled button says
// why, "Copy as curl" says it posts to a visible placeholder, and an image delivery shows its picture.
import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { AGENTS, consoleHash, control, hostCall, open, shooter, useDemoServe, type Suite } from './support/kit';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** Each size and scheme: a screenshot of the window and an axe run with nothing serious or critical. */
async function shootAndAudit(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const shot = shooter(page, testInfo);
  for (const size of SIZES) {
    for (const scheme of SCHEMES) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      const look = `${name}-${size.width}x${size.height}-${scheme}`;
      await shot(look);
      const results = await new AxeBuilder({ page }).analyze();
      await writeFile(testInfo.outputPath(`axe-${look}.json`), JSON.stringify(results.violations, null, 2));
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect
        .soft(
          bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          `axe on ${look}`,
        )
        .toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Words shown in the main area that break across two lines: a word (no spaces, hyphens or slashes,
 * which are break points of their own) whose glyphs sit on more than one line. Code and raw bodies
 * are left out, but for the hook URLs, which must stay whole.
 */
function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.querySelector('main');
    if (!root) return out;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('.sr-only, select, textarea, pre, .json-root')) continue;
      const code = el.closest('code');
      if (code && !code.closest('.hook-url-cell')) continue;
      const whole = code !== null;
      const text = n.textContent ?? '';
      for (const m of text.matchAll(whole ? /\S+/g : /[^\s/-]+/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (lines.size > 1) out.push(m[0]);
      }
    }
    return out;
  });
}

/** How much wider than the window the page is (0 when it fits). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test.describe('screens at 1280×800 and 1024×700', () => {
  const suite = useDemoServe({ clearFaults: true });

  test('tunnel: the request list above the fold at 1024×700, words whole, replay and curl say what they need; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1024, height: 700 });
    await open(page, suite, '#/tunnel');
    await expect(page.locator('.tunnel-facts')).toContainText('Listening', { timeout: 10_000 });
    const { listenUrl, forwardTo } = await hostCall<{ listenUrl: string; forwardTo: string | null }>(
      suite.ready,
      'tunnel.status',
    );
    expect(forwardTo).toBeNull();
    await hostCall(suite.ready, 'webhook.register', {
      teamId: suite.teamId,
      agentId: AGENTS.connected,
      publicUrl: `${listenUrl}/hooks/${AGENTS.connected}`,
    });
    const text = 'Hello, is my order 4521 on its way? It was ordered last week and nothing has come since then.';
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: '15550100002', type: 'text', text });
    await control(suite, `agents/${AGENTS.connected}/inbound`, {
      from: '15550100003',
      type: 'image',
      caption: 'the broken part',
    });
    const rows = page.locator('ul.reqs button.req');
    await expect(rows).toHaveCount(2, { timeout: 10_000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(rows.first()).toBeInViewport({ ratio: 1 });

    await rows.filter({ hasText: 'Hello, is my order' }).click();
    const detail = page.getByRole('region', { name: 'Selected request' });
    await expect(detail.locator('.delivery-ids')).toContainText(
      /^Delivery [0-9A-HJKMNP-TV-Z]{26} · the service's id dlv_\S+ · message \S+$/,
    );
    // Replay goes to the forward address, a local setting, and there is none: every replay button says why it is disabled.
    const why = detail.locator('.no-forward');
    await expect(why).toContainText('a local setting of this app');
    const whyId = await why.getAttribute('id');
    for (const name of ['Replay as received', 'Replay re-signed', 'Edit and replay…']) {
      const button = detail.getByRole('button', { name });
      await expect(button).toBeDisabled();
      await expect(button).toHaveAttribute('aria-describedby', whyId!);
      await expect(button).toHaveAttribute('title', /No forward address is set/);
    }
    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    await expect(detail.getByRole('status').filter({ hasText: 'curl' })).toContainText('it posts to <FORWARD_URL>');
    await expect(detail.locator('pre.curl')).toContainText(`'<FORWARD_URL>'`);
    await expect(detail.locator('pre.curl')).toContainText(/-H 'x-delivery-id: dlv_/);
    // The image delivery: its picture, fetched by the main side.
    await rows.filter({ hasText: 'the broken part' }).click();
    const picture = detail.getByRole('img', { name: /^The image from \+15550100003: the broken part$/ });
    await expect(picture).toBeVisible({ timeout: 10_000 });
    expect(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await overflow(page), `no sideways scroll at ${size.width} px`).toBe(0);
      expect(await brokenWords(page), `no word breaks across lines at ${size.width} px`).toEqual([]);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await shootAndAudit(page, testInfo, 'tunnel');
  });

  test('console: a send, an image row with its URL, and the warning before sending from an agent that needs a scan; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite, consoleHash(suite, AGENTS.connected));
    await expect(page.getByRole('combobox', { name: /Agent/ })).toHaveValue(AGENTS.connected);
    await page.getByLabel(/^To \(phone number/).fill('+15550102000');
    await page.getByLabel('Message', { exact: true }).fill('Your order 4521 left the warehouse this morning.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('table.send-history tbody tr').first()).toHaveAttribute('data-state', 'sent', {
      timeout: 10_000,
    });
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.getByLabel('Image URL').fill('https://example.com/parcel-4521.png');
    await page.getByLabel('Caption').fill('Your parcel');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const imageRow = page.locator('table.send-history tbody tr').filter({ hasText: 'Your parcel' });
    await expect(imageRow).toHaveAttribute('data-state', /sent|failed/, { timeout: 10_000 });
    await expect(imageRow.locator('.send-url')).toHaveText('https://example.com/parcel-4521.png');
    await shootAndAudit(page, testInfo, 'console-sent');

    await page.getByRole('combobox', { name: /Agent/ }).selectOption(AGENTS.unlinked);
    await expect(page.locator('.send-scan-warning')).toContainText('needs a QR scan', { timeout: 10_000 });
    await page.getByRole('radio', { name: 'Text' }).check();
    await page.getByLabel('Message', { exact: true }).fill('Are you there?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('.send-confirm')).toContainText('needs a QR scan');
    await shootAndAudit(page, testInfo, 'console-needs-scan');
  });
});

/** How far the page scrolls vertically (0: it fits the window). */
const scrollsBy = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight);

/** Text cut short on screen: elements of `selector` whose content is taller than what they show. */
const clipped = (page: Page, selector: string) =>
  page.evaluate(
    (sel) =>
      [...document.querySelectorAll<HTMLElement>(sel)]
        .filter((el) => el.scrollHeight > el.clientHeight + 1)
        .map((el) => el.textContent ?? ''),
    selector,
  );

/** Points the agent's webhook at the app's receiver, so what contacts write reaches the app. */
async function receiveFor(suite: Suite, agentId: string): Promise<void> {
  const listenUrl = await expect
    .poll(async () => (await hostCall<{ listenUrl: string | null }>(suite.ready, 'tunnel.status')).listenUrl, {
      timeout: 10_000,
    })
    .not.toBeNull()
    .then(async () => (await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status')).listenUrl);
  await hostCall(suite.ready, 'webhook.register', {
    teamId: suite.teamId,
    agentId,
    publicUrl: `${listenUrl}/hooks/${agentId}`,
  });
}

// The chat, Messages, Alerts, an agent page, Settings, the notices and a tab opened without its
// token, each in the state a day of use left it in, at 1280×800 and 1024×700, light and dark.
test.describe('screens of a day of use at 1280×800 and 1024×700', () => {
  const suite = useDemoServe({ clearFaults: true });

  test('chat: a long reply fills the window with one scrollbar, its numbers said once; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    const para = 'The parcel left the warehouse this morning and is on its way to you. '.repeat(3);
    await control(suite, `agents/${AGENTS.connected}/chat-script`, {
      reply: Array.from({ length: 25 }, (_, i) => `${i + 1}. ${para}`).join('\n\n'),
      tokenDelayMs: 1,
    });
    await page.setViewportSize(SIZES[0]);
    await open(page, suite, `#/agents/${AGENTS.connected}/chat?team=${encodeURIComponent(suite.teamId)}`);
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await page.getByLabel('Message', { exact: true }).fill('Where is my parcel?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const reply = page.locator('li.chat-agent').last();
    await expect(reply).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    const meta = reply.locator('.chat-meta');
    await expect(meta).toContainText('no actions: the agent called no tool');
    await expect(meta).toContainText(/first token \d+ ms/);
    // The transcript takes the window's height: no page scrollbar beside its own, and most of the window.
    for (const [size, least] of [
      [SIZES[0], 400],
      [SIZES[1], 260],
    ] as const) {
      await page.setViewportSize(size);
      await expect.poll(() => scrollsBy(page), `no page scroll at ${size.width}×${size.height}`).toBeLessThanOrEqual(0);
      const box = await page.locator('ol.chat-list').boundingBox();
      expect(box!.height, `the transcript's height at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(least);
      expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
    }
    await shootAndAudit(page, testInfo, 'chat-long-reply');
  });

  test('messages: styled agent picker and search, "3:38 AM" times, Delete all in the More menu, no count on the open conversation; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await receiveFor(suite, AGENTS.connected);
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: '15550107777', text: 'Is my order late?' });
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: '15550107788', type: 'image', caption: 'box' });
    const inbox = `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${AGENTS.connected}`;
    await open(page, suite, inbox);
    const rows = page.locator('a.messages-contact');
    await expect(rows).toHaveCount(2, { timeout: 15_000 });
    await expect(rows.filter({ hasText: '+15550107788' })).toContainText('Picture: box');
    for (const time of await page.locator('.messages-contact-time').allTextContents())
      expect(time).toMatch(/^[1-9]\d?:\d\d\s?(AM|PM)$/);
    // The picker and the search: labelled, as tall as the screen's other fields.
    const picker = page.getByRole('combobox', { name: 'Agent' });
    const search = page.getByRole('searchbox', { name: 'Search' });
    for (const control of [picker, search]) expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(32);
    // Delete all: nowhere under the list, in the More menu above it.
    const del = page.getByRole('button', { name: 'Delete all messages of this agent' });
    await expect(del).toBeHidden();
    const listTop = (await page.locator('ul.messages-contacts').boundingBox())!.y;
    const more = page.getByText('More', { exact: true });
    expect((await more.boundingBox())!.y).toBeLessThan(listTop);
    await more.click();
    await expect(del).toBeVisible();
    await shootAndAudit(page, testInfo, 'messages-more-menu');
    await page.getByText('More', { exact: true }).click();
    // The open conversation: a new message there never shows a count on its row.
    await rows.filter({ hasText: '+15550107777' }).click();
    await expect(page.locator('section.messages-thread')).toContainText('Is my order late?');
    const open7777 = rows.filter({ hasText: '+15550107777' });
    await expect(open7777.locator('.count')).toHaveCount(0, { timeout: 10_000 });
    const seen: string[] = [];
    const watch = setInterval(() => {
      void open7777
        .locator('.count')
        .count()
        .then((n) => (n > 0 ? seen.push(`count at ${Date.now()}`) : undefined))
        .catch(() => undefined);
    }, 20);
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: '15550107777', text: 'Hello again?' });
    await expect(page.locator('section.messages-thread')).toContainText('Hello again?', { timeout: 10_000 });
    await page.waitForTimeout(500);
    clearInterval(watch);
    expect(seen, 'no unread count flashes on the open conversation').toEqual([]);
    await shootAndAudit(page, testInfo, 'messages-thread');
  });

  test('alerts: Snooze above History, the sidebar says snoozed, urgent incidents first; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await open(page, suite, '#/alerts');
    const incidents = page.locator('ul.incidents > li');
    await expect(incidents.first()).toBeVisible({ timeout: 15_000 });
    // A warning newer than the urgent scan: drop the connected agent (reconnecting is a warning).
    await control(suite, `agents/${AGENTS.connected}/drop`, { seconds: 60 });
    await expect(page.locator('ul.incidents > li.sev-warning').first()).toBeVisible({ timeout: 20_000 });
    await expect(incidents.first()).toHaveClass(/sev-urgent/);
    const severities = await incidents.evaluateAll((els) => els.map((e) => e.className));
    expect(severities.findLastIndex((c) => c.includes('sev-urgent'))).toBeLessThan(
      severities.findIndex((c) => c.includes('sev-warning')),
    );
    const headings = await page.locator('main h3').allTextContents();
    expect(headings.indexOf('Snooze')).toBeLessThan(headings.findIndex((h) => h.startsWith('History')));
    await page.getByRole('button', { name: 'Snooze 1 h' }).click();
    const alertsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Alerts/ });
    await expect(alertsLink).toContainText('snoozed');
    await expect(alertsLink).toHaveAccessibleName(/snoozed until/);
    await shootAndAudit(page, testInfo, 'alerts-snoozed');
    await page.getByRole('button', { name: 'Resume alerts now' }).click();
    await expect(alertsLink).not.toContainText('snoozed');
  });

  test('an unlinked agent: Pair is the filled button; shot and audited', async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await open(page, suite, `#/agents/${AGENTS.unlinked}?team=${encodeURIComponent(suite.teamId)}`);
    await expect(page.locator('dt:text-is("linked") + dd')).toHaveText('false', { timeout: 10_000 });
    const actions = page.getByRole('navigation', { name: 'Agent actions' });
    await expect(actions.getByRole('link', { name: 'Pair' })).toHaveClass('button');
    await expect(actions.getByRole('link', { name: 'Chat' })).toHaveClass('button secondary');
    await expect(page.getByRole('region', { name: 'Monitor' })).not.toContainText('not polled yet');
    await shootAndAudit(page, testInfo, 'agent-unlinked');
  });

  test('settings: an added team comes into view with a confirmation; agents never read "x (x)"; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[1]);
    await open(page, suite, '#/settings');
    await page.getByRole('button', { name: 'Add a team…' }).click();
    await page.getByLabel('Team name').fill('Acme');
    await page.getByLabel('Service address').fill(suite.emulator.baseUrl);
    await page.getByLabel('Team API key').fill(suite.emulator.apiKey);
    await page.getByLabel(/^Agent IDs/).fill(`${AGENTS.flaky}, ${AGENTS.connected}`);
    await page.getByRole('button', { name: 'Add team' }).click();
    const card = page.getByRole('article', { name: 'Team Acme' });
    await expect(card.getByRole('status').filter({ hasText: 'Team Acme added with 2 agents.' })).toBeVisible({
      timeout: 15_000,
    });
    await expect(card).toBeInViewport();
    for (const text of await card.locator('ul.plain > li').allTextContents()) expect(text).not.toMatch(/^(\S+) \(\1\)/);
    await shootAndAudit(page, testInfo, 'settings-team-added');
    const { teams } = { teams: await hostCall<{ teamId: string; label: string }[]>(suite.ready, 'teams.list') };
    const acme = teams.find((t) => t.label === 'Acme');
    if (acme) await hostCall(suite.ready, 'teams.remove', { teamId: acme.teamId });
  });

  test('notices in the sidebar: whole sentences, "Dismiss all" from two; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await open(page, suite, '#/');
    await expect(page.locator('ul.agents > li').filter({ hasText: 'Support bot' })).toContainText('Connected', {
      timeout: 15_000,
    });
    await receiveFor(suite, AGENTS.connected);
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: '15550107799', text: 'Anyone there?' });
    await expect(page.locator('.toasts li.toast')).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Dismiss all' })).toHaveCount(0);
    await control(suite, `agents/${AGENTS.connected}/unlink`);
    const toasts = page.locator('.toasts li.toast');
    await expect(toasts).toHaveCount(2, { timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Dismiss all' })).toBeVisible();
    for (const size of SIZES) {
      await page.setViewportSize(size);
      expect(await clipped(page, '.toast-title, .toast-body'), `no notice cut short at ${size.width} px`).toEqual([]);
    }
    await shootAndAudit(page, testInfo, 'notices');
  });

  test('a tab opened without its token: one access message, no welcome form; shot and audited', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize(SIZES[0]);
    await page.goto(`${suite.ready.origin}/`);
    await expect(
      page.getByRole('heading', { level: 2, name: 'This page was opened without its access link.' }),
    ).toBeVisible({
      timeout: 15_000,
    });
    await expect(page.getByRole('heading', { name: 'Welcome' })).toHaveCount(0);
    await expect(page.getByLabel('Team name')).toHaveCount(0);
    expect(((await page.locator('body').textContent()) ?? '').match(/access (link|token)/g)).toHaveLength(1);
    await shootAndAudit(page, testInfo, 'no-token');
  });
});
