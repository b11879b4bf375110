// The send console in Chromium against `serve --emulator`, each state shot at 1280 and 1024 px,
// light and dark: a bad number keeps what was typed and sends nothing; the contact check, and its
// warning before a send to a number not on WhatsApp; a send's result right under the Send button,
// in view without scrolling; 409 says it needs a QR scan and links to pairing; a 503 keeps being
// retried for as long as the agent reconnects (past the client's own bounded retries), then sends;
// 429s say the rate limit per minute and the wait; a failed send has Retry; with the send budget
// spent (a team whose limit is 2 a minute, made through the emulator's control API) the form stays
// open, new sends queue, the meter shows the spent budget, and each queued send can be cancelled.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { consoleHash, control, hostCall, open, shooter, shooterAcross, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';
const TO = '15550102000';

let suite: Suite;

interface EmuState {
  sentMessages: Array<{ agentId: string; to: string; text?: string; id?: string; messageId?: string }>;
}

async function sent(): Promise<EmuState['sentMessages']> {
  return (await control<EmuState>(suite, 'state', undefined, 'GET')).sentMessages;
}

async function openConsole(page: Page, agentId = AGENT, hash = consoleHash(suite, agentId)): Promise<void> {
  await open(page, suite, hash);
  await expect(page.getByRole('heading', { name: 'Send console' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: /Agent/ })).toHaveValue(agentId);
}

const toBox = (page: Page) => page.getByLabel(/^To \(phone number/);
const textBox = (page: Page) => page.getByLabel('Message', { exact: true });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });
const historyRow = (page: Page, text: string) => page.locator('table.send-history tbody tr').filter({ hasText: text });
const result = (page: Page) => page.locator('.send-result');

/** How much wider than the window the page is (0 when it fits). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function noSeriousAxe(page: Page): Promise<void> {
  const bad = (await new AxeBuilder({ page }).analyze()).violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** A team of its own on the emulator whose service allows 2 sends a minute, added to the app; its console's hash. */
async function smallTeam(name: string, agentId: string): Promise<string> {
  const small = await control<{ id: string; apiKey: string }>(suite, 'teams', { name, sendsPerMinute: 2 });
  await control(suite, `teams/${small.id}/agents`, {
    agentId,
    label: `${name} bot`,
    state: 'connected',
    phone: '15550107777',
  });
  const team = await hostCall<{ teamId: string }>(suite.ready, 'teams.add', {
    label: name,
    baseUrl: suite.emulator.baseUrl,
    apiKey: small.apiKey,
    agents: [{ agentId, label: `${name} bot` }],
  });
  return `#/console?team=${encodeURIComponent(team.teamId)}&agent=${agentId}`;
}

test.describe('send console', () => {
  suite = useServe();
  test.afterEach(async () => {
    await control(suite, 'faults', undefined, 'DELETE');
  });

  test('a bad number keeps what was typed and sends nothing; the contact check answers and warns before a send to a number not on WhatsApp', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    const shots = shooterAcross(page, testInfo);
    await openConsole(page);
    const before = (await sent()).length;
    await toBox(page).fill('+1 555 O1O 2000');
    await textBox(page).fill('Hello there');
    await expect(page.getByText('contains letters')).toBeVisible();
    await expect(toBox(page)).toHaveAttribute('aria-invalid', 'true');
    await expect(sendButton(page)).toBeDisabled();
    await textBox(page).press('Enter');
    await page.waitForTimeout(500);
    await expect(toBox(page)).toHaveValue('+1 555 O1O 2000');
    await expect(textBox(page)).toHaveValue('Hello there');
    expect((await sent()).length, 'nothing reached the service').toBe(before);
    await shot('console-bad-number');

    await toBox(page).fill('0555 0102');
    await expect(page.getByText(/starts with 0/)).toBeVisible();
    await toBox(page).fill('+1 (555) 010-2000');
    await expect(page.getByText(`Sends to +${TO}`)).toBeVisible();

    // Contact check: one number on WhatsApp, one not; Alt+C from the form does the same.
    await control(suite, 'contacts', { phones: [TO] });
    await page.getByRole('button', { name: /Check contact/ }).click();
    await expect(page.getByRole('status').filter({ hasText: 'On WhatsApp' })).toHaveText(
      new RegExp(`On WhatsApp: yes — JID ${TO}@s\\.whatsapp\\.net`),
    );
    await shot('console-contact-yes');
    await toBox(page).fill('+1 555 010 9999');
    await toBox(page).press('Alt+c');
    await expect(page.getByRole('status').filter({ hasText: 'On WhatsApp' })).toHaveText(
      /On WhatsApp: no — \+?15550109999 has no WhatsApp account/,
    );

    // Sending to it asks first; "Don't send" sends nothing, "Send anyway" sends.
    await textBox(page).press('Enter');
    const confirm = page.locator('.send-confirm');
    await expect(confirm).toContainText('+15550109999 is not on WhatsApp.');
    await expect(page.getByRole('button', { name: "Don't send" })).toBeFocused();
    await shots('console-not-on-whatsapp');
    await page.getByRole('button', { name: "Don't send" }).click();
    await expect(confirm).toHaveCount(0);
    expect((await sent()).length, 'nothing sent without saying so').toBe(before);
    await sendButton(page).click();
    await page.getByRole('button', { name: 'Send anyway' }).click();
    await expect(historyRow(page, 'Hello there')).toHaveAttribute('data-state', 'sent');
  });

  test("a text send's result is right under the Send button, in view without scrolling, and lands in the history with its message id", async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Your order has shipped');
    await sendButton(page).click();
    await expect(result(page)).toContainText(`Sent to +${TO} — message id`);
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 720 });
      await expect(result(page)).toBeInViewport({ ratio: 1 });
    }
    const row = historyRow(page, 'Your order has shipped');
    await expect(row).toHaveAttribute('data-state', 'sent');
    const id = (await row.locator('td').nth(5).innerText()).trim();
    expect(id).not.toBe('—');
    await expect(result(page)).toContainText(id);
    const onService = (await sent()).find((m) => m.text === 'Your order has shipped');
    expect(onService, 'the service got the message').toBeTruthy();
    expect(JSON.stringify(onService)).toContain(id);
    await expect(textBox(page)).toHaveValue('');
    await shots('console-sent');
  });

  test('long content wraps in the history (the page never gets wider than the window), with everything sent one click away', async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await page.setViewportSize({ width: 1024, height: 720 });
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    const url = `https://example.com/${'a'.repeat(300)}`;
    await textBox(page).fill(url);
    await sendButton(page).click();
    await expect(historyRow(page, url.slice(0, 60))).toHaveAttribute('data-state', 'sent');
    const long = `${'word '.repeat(2000)}${'x'.repeat(60_000)}`;
    await textBox(page).fill(long);
    await sendButton(page).click();
    // Over the 65,536 characters a send may carry: refused, and listed with what was typed.
    await expect(historyRow(page, 'word word')).toHaveAttribute('data-state', 'failed', { timeout: 15_000 });
    for (const width of [1024, 1280]) {
      await page.setViewportSize({ width, height: 720 });
      expect(await overflow(page), `no sideways scroll at ${width} px`).toBe(0);
      await expect(page.locator('.send-meter')).toBeInViewport({ ratio: 1 });
      const right = await page
        .locator('table.send-history')
        .evaluate((t) => t.getBoundingClientRect().right - document.documentElement.clientWidth);
      expect(right, `the history ends inside the window at ${width} px`).toBeLessThanOrEqual(0);
    }
    const all = historyRow(page, 'word word').locator('details.send-full');
    await all.locator('summary').click();
    await expect(all.locator('summary')).toHaveText('All 70,000 characters');
    await expect(all.getByLabel(`Everything sent to +${TO}`)).toHaveText(long);
    for (const width of [1024, 1280]) {
      await page.setViewportSize({ width, height: 720 });
      expect(await overflow(page), `no sideways scroll at ${width} px with everything shown`).toBe(0);
    }
    await noSeriousAxe(page);
    await shots('console-long-content');
  });

  test("an image URL is checked by the app, and a field's error goes once the field holds another value", async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page);
    await page.getByRole('radio', { name: 'Image' }).check();
    await toBox(page).fill(`+${TO}`);
    const urlBox = page.getByLabel('Image URL');
    await urlBox.fill('javascript:alert(1)');
    await sendButton(page).click();
    const error = page.locator('.field-error');
    await expect(error).toContainText('javascript:');
    await expect(historyRow(page, 'javascript:alert(1)')).toHaveAttribute('data-state', 'failed');
    await urlBox.fill('example.com/a.png');
    await expect(error).toHaveCount(0);
    await sendButton(page).click();
    // The app's own check answers for the new value (the browser's check does not stop the send).
    await expect(historyRow(page, 'example.com/a.png')).toHaveAttribute('data-state', 'failed');
    await expect(error).toContainText('not a valid URL');
    await expect(urlBox).toHaveAttribute('aria-describedby', (await error.getAttribute('id')) ?? 'missing');
    await expect(urlBox).toHaveValue('example.com/a.png');
    await shot('console-url-error-current');
  });

  test("a queued send's place and wait follow the queue: its row and result say what the send budget's list says", async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await openConsole(page, 'agent-tiny', await smallTeam('Tiny plan', 'agent-tiny'));
    await toBox(page).fill(`+${TO}`);
    for (const n of [1, 2]) {
      await textBox(page).fill(`tiny ${n}`);
      await sendButton(page).click();
      await expect(historyRow(page, `tiny ${n}`)).toHaveAttribute('data-state', 'sent');
    }
    await expect(page.getByRole('meter', { name: 'Send budget used' })).toHaveAttribute(
      'aria-valuetext',
      '2 of 2 sends used in the last minute',
      { timeout: 5000 },
    );
    for (const n of [3, 4, 5]) {
      await textBox(page).fill(`tiny ${n}`);
      await sendButton(page).click();
      await expect(historyRow(page, `tiny ${n}`)).toHaveAttribute('data-state', 'queued');
    }
    await expect(historyRow(page, 'tiny 5')).toContainText(/Queued \(position 3, about \d+ s\)/);
    const queue = page.locator('.send-queue li');
    await expect(queue).toHaveCount(3, { timeout: 5000 });
    // The budget's count is the team's queue, and says so; here all three are this agent's rows marked queued.
    await expect(page.getByRole('heading', { name: "Waiting in the team's queue (3)" })).toBeVisible();
    await expect(page.locator('table.send-history tbody tr[data-state="queued"]')).toHaveCount(3);
    await expect(page.locator('.queue-mine')).toHaveText('All from Tiny plan bot.');
    // The message box cleared once each send was queued.
    await expect(textBox(page)).toHaveValue('');
    // The first one waiting leaves the queue: the last one moves up, in its row and under the form.
    await historyRow(page, 'tiny 3')
      .getByRole('button', { name: `Cancel the send to +${TO}` })
      .click();
    await expect(queue).toHaveCount(2, { timeout: 5000 });
    await expect(historyRow(page, 'tiny 5')).toContainText(/Queued \(position 2, about \d+ s\)/, { timeout: 5000 });
    await expect(result(page)).toContainText(/Queued \(position 2, about \d+ s\)/);
    // The wait counts down with the budget's list, and says the same.
    const seconds = async () => Number(/about (\d+) s/.exec(await historyRow(page, 'tiny 5').innerText())?.[1]);
    const first = await seconds();
    await expect.poll(seconds, { timeout: 8000 }).toBeLessThan(first);
    await expect
      .poll(
        async () => `${await seconds()} s` === /leaves in about (\d+ s)/.exec(await queue.last().innerText())?.[1],
        { timeout: 5000 },
      )
      .toBe(true);
    await shots('console-queue-moves-up');
    for (const n of [4, 5])
      await historyRow(page, `tiny ${n}`)
        .getByRole('button', { name: `Cancel the send to +${TO}` })
        .click();
    await expect(queue).toHaveCount(0, { timeout: 5000 });
  });

  test('an agent known to need a scan: a warning with Pair, a confirmation, then the 409 says it needs a QR scan, with a link to pairing', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page, 'agent-unlinked');
    await expect(page.locator('.send-scan-warning')).toContainText('needs a QR scan', { timeout: 10_000 });
    await expect(page.locator('.send-scan-warning').getByRole('link', { name: /^Pair / })).toHaveAttribute(
      'href',
      `#/agents/agent-unlinked/pairing?team=${encodeURIComponent(suite.teamId)}`,
    );
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Are you there?');
    await sendButton(page).click();
    // Nothing goes out before the second click.
    const confirm = page.locator('.send-confirm');
    await expect(confirm).toContainText('needs a QR scan');
    await expect(historyRow(page, 'Are you there?')).toHaveCount(0);
    await shot('console-needs-scan-confirm');
    await confirm.getByRole('button', { name: 'Send anyway' }).click();
    const alert = page.locator('.send-error');
    await expect(alert).toContainText('Needs a QR scan');
    await expect(alert).toContainText('409');
    await expect(textBox(page)).toHaveValue('Are you there?');
    const link = alert.getByRole('link', { name: /Open pairing for agent-unlinked/ });
    await expect(link).toHaveAttribute(
      'href',
      `#/agents/agent-unlinked/pairing?team=${encodeURIComponent(suite.teamId)}`,
    );
    await expect(historyRow(page, 'Are you there?')).toHaveAttribute('data-state', 'failed');
    await shot('console-needs-qr');
    await link.click();
    await expect(page).toHaveURL(/#\/agents\/agent-unlinked\/pairing/);
    await shot('console-to-pairing');
  });

  test('a 503 keeps being retried while the agent reconnects, past the client’s own four retries, then sends', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Sent through a long reconnect');
    // Four retries wait at most 1 + 2 + 4 + 8 s: a 30 s drop outlasts them.
    await control(suite, `agents/${AGENT}/drop`, { seconds: 30 });
    await sendButton(page).click();
    const progress = page.locator('.send-progress');
    await expect(progress).toContainText(
      /Reconnecting — retrying \(attempt 1, next in \d+ s\) — it keeps retrying while the number reconnects\./,
    );
    await expect(result(page).getByRole('button', { name: `Cancel the send to +${TO}` })).toBeVisible();
    await shots('console-reconnecting');
    await expect(progress).toContainText(/attempt [5-9]/, { timeout: 40_000 });
    const row = historyRow(page, 'Sent through a long reconnect');
    await expect(row).toHaveAttribute('data-state', 'sent', { timeout: 45_000 });
    const retries = Number(/Sent after (\d+) retries/.exec(await row.innerText())?.[1]);
    expect(retries, 'more retries than the client makes on its own').toBeGreaterThan(4);
    await expect(result(page)).toContainText(/Sent after \d+ retries to/);
    await shots('console-sent-after-retries');
  });

  test('429s say the rate limit per minute with the wait; a failed send has Retry', async ({ page }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Rate limited hello');
    // More 429s than a send retries (3): the 4th answer is returned to the window.
    await control(suite, 'faults', {
      kind: '429',
      count: 4,
      retryAfterSeconds: 2,
      pathPrefix: `/api/v1/agents/${AGENT}/whatsapp/messages`,
    });
    await sendButton(page).click();
    await expect(page.locator('.send-progress')).toContainText(
      /Rate limit \(60 per minute\) — retrying \(attempt \d, next in 2 s\)/,
    );
    const alert = page.locator('.send-error');
    await expect(alert).toContainText(/Rate limit \(60 per minute\) — you can send again in [12] s\./, {
      timeout: 20_000,
    });
    await shots('console-429-countdown');
    await expect(alert).toContainText('Rate limit (60 per minute) — you can send again now.', { timeout: 5000 });
    await expect(textBox(page)).toHaveValue('Rate limited hello');
    const row = historyRow(page, 'Rate limited hello');
    await expect(row).toHaveAttribute('data-state', 'failed');
    // Retry: the same message again, as a new send, which goes out.
    await result(page)
      .getByRole('button', { name: `Retry the send to +${TO}` })
      .click();
    await expect(historyRow(page, 'Rate limited hello').first()).toHaveAttribute('data-state', 'sent');
    await expect(historyRow(page, 'Rate limited hello')).toHaveCount(2);
    await expect(row.last().getByRole('button', { name: /^Retry/ })).toHaveCount(0);
    await shots('console-retried');
  });

  test('with the send budget spent, the form stays open, new sends queue, the meter shows it spent, and each can be cancelled', async ({
    page,
  }, testInfo) => {
    const shots = shooterAcross(page, testInfo);
    // A team whose service allows 2 sends a minute, through the emulator's control API.
    const small = await control<{ id: string; apiKey: string }>(suite, 'teams', {
      name: 'Small plan',
      sendsPerMinute: 2,
    });
    await control(suite, `teams/${small.id}/agents`, {
      agentId: 'agent-small',
      label: 'Small bot',
      state: 'connected',
      phone: '15550107777',
    });
    const team = await hostCall<{ teamId: string }>(suite.ready, 'teams.add', {
      label: 'Small plan',
      baseUrl: suite.emulator.baseUrl,
      apiKey: small.apiKey,
      agents: [{ agentId: 'agent-small', label: 'Small bot' }],
    });
    const hash = `#/console?team=${encodeURIComponent(team.teamId)}&agent=agent-small`;
    await openConsole(page, 'agent-small', hash);
    await toBox(page).fill(`+${TO}`);
    // Two go out and the service reports its ceiling (X-RateLimit-Limit: 2): the budget is spent.
    for (const n of [1, 2]) {
      await textBox(page).fill(`small ${n}`);
      await sendButton(page).click();
      await expect(historyRow(page, `small ${n}`)).toHaveAttribute('data-state', 'sent');
    }
    const meter = page.getByRole('meter', { name: 'Send budget used' });
    await expect(meter).toHaveAttribute('aria-valuetext', '2 of 2 sends used in the last minute', { timeout: 5000 });
    await expect(page.locator('.send-meter')).toHaveClass(/send-meter-spent/);
    await expect(page.locator('.send-meter')).toContainText('budget spent');
    const before = (await sent()).length;
    // Two more: both queue, the form never locks.
    await textBox(page).fill('waits one');
    await sendButton(page).click();
    await expect(historyRow(page, 'waits one')).toContainText(/Queued \(position 1, about \d+ s\)/);
    await expect(sendButton(page)).toBeEnabled();
    await textBox(page).fill('waits two');
    await sendButton(page).click();
    await expect(historyRow(page, 'waits two')).toContainText(/Queued \(position 2, about \d+ s\)/);
    await expect(page.locator('.send-queue li')).toHaveCount(2, { timeout: 5000 });
    await expect(result(page)).toContainText('Queued (position 2');
    await expect(result(page)).toBeInViewport();
    await shots('console-queued');
    // Cancel each: one from its history row, one from the result under the form.
    await historyRow(page, 'waits one')
      .getByRole('button', { name: `Cancel the send to +${TO}` })
      .click();
    await expect(historyRow(page, 'waits one')).toContainText('Cancelled');
    await result(page)
      .getByRole('button', { name: `Cancel the send to +${TO}` })
      .click();
    await expect(historyRow(page, 'waits two')).toContainText('Cancelled');
    await expect(result(page)).toContainText('Cancelled — this message was not sent.');
    await expect(page.locator('.send-queue li')).toHaveCount(0, { timeout: 5000 });
    await expect(textBox(page)).toHaveValue('waits two');
    expect((await sent()).length, 'the cancelled sends never left').toBe(before);
    await shots('console-queue-cancelled');
  });
});
