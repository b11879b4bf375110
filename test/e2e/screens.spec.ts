// The tunnel and console screens at 1280×800 and 1024×700, light and dark, against `serve
// --emulator`: each state shot in all four looks with no serious or critical axe violation. The
// tunnel at 1024×700: the request list starts above the fold, no word (nor a hook URL) breaks across
// lines, replay without a forward address says it is a local setting and each disabled button says
// why, "Copy as curl" says it posts to a visible placeholder, and an image delivery shows its picture.
import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { AGENTS, consoleHash, control, hostCall, open, shooter, useDemoServe } from './support/kit';

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
