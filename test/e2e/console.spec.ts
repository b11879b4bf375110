// The send console in Chromium against `serve --emulator`: a bad number keeps what was
// typed and sends nothing; the contact check; a text send lands in the history with its message id;
// 409 (unlinked agent) says it needs a QR scan and links to pairing; 503 while the link is dropped
// shows "Reconnecting — retrying" with the retries and then sends; 429s end in a countdown; with the
// send budget spent, a send waits in the queue and can be cancelled.
import { expect, test, type Page } from '@playwright/test';
import { consoleHash, control, hostCall, open, shooter, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';
const TO = '15550102000';

let suite: Suite;

interface EmuState {
  sentMessages: Array<{ agentId: string; to: string; text?: string; id?: string; messageId?: string }>;
}

async function sent(): Promise<EmuState['sentMessages']> {
  return (await control<EmuState>(suite, 'state', undefined, 'GET')).sentMessages;
}

async function openConsole(page: Page, agentId = AGENT): Promise<void> {
  await open(page, suite, consoleHash(suite, agentId));
  await expect(page.getByRole('heading', { name: 'Send console' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: /Agent/ })).toHaveValue(agentId);
}

const toBox = (page: Page) => page.getByLabel(/^To \(phone number/);
const textBox = (page: Page) => page.getByLabel('Message', { exact: true });
const sendButton = (page: Page) => page.getByRole('button', { name: /^(Send|Sending…)$/ });
const historyRow = (page: Page, text: string) => page.locator('table.send-history tbody tr').filter({ hasText: text });

test.describe('send console', () => {
  suite = useServe();
  test.afterEach(async () => {
    await control(suite, 'faults', undefined, 'DELETE');
  });

  test('a bad number keeps what was typed and sends nothing; the contact check answers', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
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
    await expect(page.getByRole('status').filter({ hasText: 'On WhatsApp' })).toHaveText(new RegExp(`On WhatsApp: yes — JID ${TO}@s\\.whatsapp\\.net`));
    await shot('console-contact-yes');
    await toBox(page).fill('+1 555 010 9999');
    await toBox(page).press('Alt+c');
    await expect(page.getByRole('status').filter({ hasText: 'On WhatsApp' })).toHaveText(/On WhatsApp: no — \+?15550109999 has no WhatsApp account/);
    await shot('console-contact-no');
  });

  test('a text send lands in the history with its message id', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Your order has shipped');
    await sendButton(page).click();
    const row = historyRow(page, 'Your order has shipped');
    await expect(row).toHaveAttribute('data-state', 'sent');
    await expect(row).toContainText('Sent');
    const id = (await row.locator('td').nth(5).innerText()).trim();
    expect(id).not.toBe('—');
    const onService = (await sent()).find((m) => m.text === 'Your order has shipped');
    expect(onService, 'the service got the message').toBeTruthy();
    expect(JSON.stringify(onService)).toContain(id);
    await expect(textBox(page)).toHaveValue('');
    await shot('console-sent');
  });

  test('409 from an unlinked agent: needs a QR scan, with a link to pairing', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page, 'agent-unlinked');
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Are you there?');
    await sendButton(page).click();
    const alert = page.locator('.send-error');
    await expect(alert).toContainText('Needs a QR scan');
    await expect(alert).toContainText('409');
    await expect(textBox(page)).toHaveValue('Are you there?');
    const link = alert.getByRole('link', { name: /Open pairing for agent-unlinked/ });
    await expect(link).toHaveAttribute('href', `#/agents/agent-unlinked/pairing?team=${encodeURIComponent(suite.teamId)}`);
    await expect(historyRow(page, 'Are you there?')).toHaveAttribute('data-state', 'failed');
    await shot('console-needs-qr');
    await link.click();
    await expect(page).toHaveURL(/#\/agents\/agent-unlinked\/pairing/);
    await shot('console-to-pairing');
  });

  test('503 while the link is dropped: reconnecting — retrying, with the retries, then sent', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Sent through a reconnect');
    await control(suite, `agents/${AGENT}/drop`, { seconds: 3 });
    await sendButton(page).click();
    const progress = page.locator('.send-progress');
    await expect(progress).toContainText(/Reconnecting — retrying \(attempt 1, next in \d+ s\)/);
    await shot('console-reconnecting');
    const row = historyRow(page, 'Sent through a reconnect');
    await expect(row).toContainText(/Reconnecting — retrying/);
    await expect(row).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    await expect(row).toContainText(/Sent after \d+ retr(y|ies)/);
    expect((await row.locator('td').nth(5).innerText()).trim()).not.toBe('—');
    await expect(progress).toHaveCount(0);
    await shot('console-sent-after-retries');
  });

  test('429s end in a countdown, and the text is kept', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await openConsole(page);
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Rate limited hello');
    // More 429s than a send retries (3): the 4th answer is returned to the window.
    await control(suite, 'faults', { kind: '429', count: 5, retryAfterSeconds: 2, pathPrefix: `/api/v1/agents/${AGENT}/whatsapp/messages` });
    await sendButton(page).click();
    await expect(page.locator('.send-progress')).toContainText(/Retrying \(attempt \d, next in 2 s\)/);
    await shot('console-429-retrying');
    const alert = page.locator('.send-error');
    await expect(alert).toContainText(/Rate limited — you can send again in [12] s\./, { timeout: 20_000 });
    await shot('console-429-countdown');
    await expect(alert).toContainText('Rate limited — you can send again now.', { timeout: 5000 });
    await expect(textBox(page)).toHaveValue('Rate limited hello');
    await expect(historyRow(page, 'Rate limited hello')).toHaveAttribute('data-state', 'failed');
    await shot('console-429-again-now');
  });

  test('with the send budget spent, a send waits in the queue and can be cancelled', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    // Spend the team's 60 sends a minute through the host, as other windows would.
    const budget = await hostCall<{ limit: number; used: number }>(suite.ready, 'send.budget', { teamId: suite.teamId });
    for (let i = budget.used; i < budget.limit; i++) await hostCall(suite.ready, 'send.message', { teamId: suite.teamId, agentId: AGENT, to: `+${TO}`, text: `filler ${i}` });
    await openConsole(page);
    await expect(page.locator('.send-meter')).toContainText(/budget spent/, { timeout: 5000 });
    const before = (await sent()).length;
    await toBox(page).fill(`+${TO}`);
    await textBox(page).fill('Waits for room');
    await sendButton(page).click();
    await expect(page.locator('.send-progress')).toContainText(/Queued \(position 1, about \d+ s\)/);
    await expect(page.locator('.send-queue li')).toHaveCount(1, { timeout: 5000 });
    await expect(page.locator('.send-queue li')).toContainText(`to +${TO} from ${AGENT}`);
    await shot('console-queued');
    await page.getByRole('button', { name: `Cancel queued send to +${TO}` }).click();
    await expect(page.locator('.send-meter [role=status]')).toContainText(`Cancelled the send to +${TO}.`);
    await expect(page.locator('.send-queue li')).toHaveCount(0);
    await expect(historyRow(page, 'Waits for room')).toHaveAttribute('data-state', 'failed');
    await expect(textBox(page)).toHaveValue('Waits for room');
    expect((await sent()).length, 'the cancelled send never left').toBe(before);
    await shot('console-queue-cancelled');
  });
});
