// The Messages composer and "New conversation" in Chromium against `serve --emulator`, with the
// app's receiver registered as the agent's webhook: a reply in a thread goes out and the demo's
// scripted contact answers in the same thread; a number not on WhatsApp is refused before anything is
// sent, one on WhatsApp opens its empty thread; an agent unlinked through the emulator's control API
// is warned about before a send and its 409 says a QR scan is needed, with the Pair action; an agent
// dropped (reconnecting) has its send retried in the thread, then sent. Each state without serious or
// critical axe violations (light and dark), shot at 1280×800 and 1024×700.
import { expect, test, type Page } from '@playwright/test';
import { control, hostCall, noSeriousAxe, open, shooterSizes, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';
/** The demo's scripted contact: it answers every message sent to it. */
const ROBIN = '+15550100042';

let suite: Suite;

async function sentCount(): Promise<number> {
  return (await control<{ sentMessages: unknown[] }>(suite, 'state', undefined, 'GET')).sentMessages.length;
}

/** Points the agent's webhook at the app's receiver, so what contacts write reaches Messages. */
async function receiveHere(): Promise<void> {
  let listenUrl: string | null = null;
  await expect
    .poll(
      async () => (listenUrl = (await hostCall<{ listenUrl: string | null }>(suite.ready, 'tunnel.status')).listenUrl),
      {
        timeout: 10_000,
      },
    )
    .not.toBeNull();
  await hostCall(suite.ready, 'webhook.register', {
    teamId: suite.teamId,
    agentId: AGENT,
    publicUrl: `${listenUrl}/hooks/${AGENT}`,
  });
}

const threadHash = (contact: string) =>
  `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${AGENT}&with=${encodeURIComponent(contact)}`;
const thread = (page: Page, contact: string) => page.getByRole('region', { name: `Conversation with ${contact}` });
const replyBox = (page: Page) => page.getByLabel('Reply', { exact: true });
const going = (page: Page) => page.getByRole('list', { name: 'Sends going out' });

test.describe('Messages composer', () => {
  suite = useServe();
  test.beforeEach(async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    // The emulator is reset after each test; the app reads the agent linked again at its next poll.
    await expect
      .poll(
        async () =>
          (
            await hostCall<{ agents: Array<{ agentId: string; health: string }> }>(suite.ready, 'health.snapshot')
          ).agents.find((a) => a.agentId === AGENT)?.health,
        { timeout: 10_000 },
      )
      .toBe('connected');
  });
  test.afterEach(async () => {
    await control(suite, 'faults', undefined, 'DELETE');
    await control(suite, '/reset');
  });

  test('a reply in a thread goes out, and the scripted contact answers in the same thread', async ({
    page,
  }, testInfo) => {
    const shots = shooterSizes(page, testInfo);
    await receiveHere();
    await open(page, suite, threadHash(ROBIN));
    const conv = thread(page, ROBIN);
    await expect(conv).toBeVisible();
    await replyBox(page).fill('Hello Robin, your parcel left today.');
    await replyBox(page).press('Enter');
    // The send log's line reaches the thread: an outbound bubble, sent; the box is empty again.
    await expect(
      conv.locator('li.messages-bubble.out').filter({ hasText: 'Hello Robin, your parcel left today.' }),
    ).toContainText('sent', { timeout: 10_000 });
    await expect(replyBox(page)).toHaveValue('');
    // The scripted contact answers; its message arrives through the receiver into the open thread.
    await expect(conv.locator('li.messages-bubble.in').filter({ hasText: 'You said: Hello Robin' })).toBeVisible({
      timeout: 15_000,
    });
    await expect(going(page)).toHaveCount(0);
    await noSeriousAxe(page);
    await shots('reply-answered');
  });

  test('New conversation: a number not on WhatsApp is refused before anything is sent; one on WhatsApp opens its thread', async ({
    page,
  }, testInfo) => {
    const shots = shooterSizes(page, testInfo);
    await open(page, suite, `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${AGENT}`);
    const before = await sentCount();
    await page.getByRole('button', { name: 'New conversation' }).click();
    const form = page.getByRole('form', { name: 'New conversation' });
    await expect(form.getByLabel('From agent')).toHaveValue(`${suite.teamId}/${AGENT}`);
    await form.getByLabel('Phone number (with country code)').fill('+1 555 010 9999');
    await form.getByRole('button', { name: 'Check and open' }).click();
    await expect(form.getByRole('alert')).toHaveText(
      '+15550109999 is not on WhatsApp. Nothing was sent: a message to it would not arrive.',
    );
    expect(await sentCount()).toBe(before);
    await expect(page).not.toHaveURL(/with=/);
    await noSeriousAxe(page);
    await shots('new-conversation-not-on-whatsapp');

    await form.getByLabel('Phone number (with country code)').fill('0555 010');
    await form.getByRole('button', { name: 'Check and open' }).click();
    await expect(form.getByRole('alert')).toContainText('starts with 0');

    await form.getByLabel('Phone number (with country code)').fill('+1 555 010 0002');
    await form.getByRole('button', { name: 'Check and open' }).click();
    await expect(page).toHaveURL(/with=%2B15550100002/);
    const conv = thread(page, '+15550100002');
    await expect(conv).toBeVisible();
    await expect(replyBox(page)).toBeVisible();
    expect(await sentCount()).toBe(before);
    await noSeriousAxe(page);
    await shots('new-conversation-opened');
  });

  test('an agent that needs a scan: warned before the send, then the 409 says so with the Pair action', async ({
    page,
  }, testInfo) => {
    const shots = shooterSizes(page, testInfo);
    await control(suite, `agents/${AGENT}/unlink`);
    await open(page, suite, threadHash('+15550100002'));
    // The monitor sees the agent unlinked: the composer says so, with Pair.
    const warning = page.locator('.messages-compose .send-scan-warning');
    await expect(warning).toContainText('needs a QR scan', { timeout: 15_000 });
    await expect(warning.getByRole('link', { name: /^Pair / })).toHaveAttribute(
      'href',
      `#/agents/${AGENT}/pairing?team=${encodeURIComponent(suite.teamId)}`,
    );
    const before = await sentCount();
    await replyBox(page).fill('Are you still there?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const ask = page.locator('.messages-compose .send-confirm');
    await expect(ask).toContainText('needs a QR scan');
    await noSeriousAxe(page);
    await shots('needs-scan-ask');
    await ask.getByRole('button', { name: 'Send anyway' }).click();
    const alert = page.locator('.messages-compose-failed').getByRole('alert');
    await expect(alert).toContainText('Needs a QR scan');
    await expect(alert).toContainText('409');
    expect(await sentCount()).toBe(before);
    // Nothing typed is lost.
    await expect(replyBox(page)).toHaveValue('Are you still there?');
    await noSeriousAxe(page);
    await shots('needs-scan-409');
    await alert.getByRole('link', { name: `Open pairing for ${AGENT}` }).click();
    await expect(page).toHaveURL(new RegExp(`#/agents/${AGENT}/pairing`));
  });

  test('an agent reconnecting: the send waits in the thread, retrying, then it is sent', async ({ page }, testInfo) => {
    test.setTimeout(60_000);
    const shots = shooterSizes(page, testInfo);
    await open(page, suite, threadHash('+15550100002'));
    const conv = thread(page, '+15550100002');
    await expect(conv).toBeVisible();
    await control(suite, `agents/${AGENT}/drop`, { seconds: 8 });
    await replyBox(page).fill('Sent through a reconnect');
    await replyBox(page).press('Enter');
    await expect(going(page)).toContainText(/Reconnecting — retrying \(attempt \d, next in \d+ s\)/, {
      timeout: 10_000,
    });
    await expect(going(page)).toContainText('it keeps retrying while the number reconnects');
    await expect(going(page).getByRole('button', { name: 'Cancel the send to +15550100002' })).toBeVisible();
    await noSeriousAxe(page);
    await shots('reconnecting-retrying');
    await expect(conv.locator('li.messages-bubble.out').filter({ hasText: 'Sent through a reconnect' })).toContainText(
      'sent',
      { timeout: 30_000 },
    );
    await expect(going(page)).toHaveCount(0);
    await expect(replyBox(page)).toHaveValue('');
    await shots('reconnecting-sent');
  });
});
