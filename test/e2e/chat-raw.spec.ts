// The chat window against `serve --emulator --dialect anthropic-stream`: the reply of a service that
// streams Anthropic-style blocks is read and shown, "Show raw stream frames" lists those frames as
// they came (event, data), and a reply without any text says "Could not read the agent's reply"
// with what the service sent.
import { expect, test, type Page } from '@playwright/test';
import { control, openChatAsNewCustomer, shooter, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';

let suite: Suite;

test.describe('chat window, a service in another dialect', () => {
  suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1', '--dialect', 'anthropic-stream']);
  test.afterEach(async () => {
    await control(suite, `agents/${AGENT}/chat-script`, {});
  });

  const lastReply = (page: Page) => page.locator('li.chat-agent').last();

  async function chat(page: Page, text: string): Promise<void> {
    await openChatAsNewCustomer(page, suite, AGENT);
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
  }

  test('the reply is read, and the raw view lists the frames as received', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const tokens = ['Bonjour ', 'from ', 'blocks.'];
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 20 });
    await chat(page, 'hello');
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
    await expect(lastReply(page).locator('.chat-bubble .md')).toHaveText(tokens.join(''));
    await page.getByLabel('Show raw stream frames').check();
    const frames = lastReply(page).locator('.chat-frames li');
    await expect(frames.first()).toContainText('event: message_start');
    await expect(frames.filter({ hasText: 'event: content_block_delta' })).toHaveCount(tokens.length);
    await expect(frames.filter({ hasText: 'event: content_block_delta' }).first()).toContainText(
      '"text_delta","text":"Bonjour "',
    );
    await expect(frames.last()).toContainText('event: message_stop');
    await shot('chat-raw-frames-dialect');
  });

  test('a reply without any text: "Could not read the agent\'s reply" and what the service sent', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await control(suite, `agents/${AGENT}/chat-script`, { reply: '' });
    await chat(page, 'hello?');
    await expect(lastReply(page)).toHaveAttribute('data-status', 'error', { timeout: 10_000 });
    await expect(lastReply(page).locator('.chat-bubble')).toContainText("Could not read the agent's reply.");
    const raw = lastReply(page).locator('.chat-raw');
    await expect(raw.locator('summary')).toHaveText(
      /^What the service sent: HTTP 200, text\/event-stream; charset=utf-8, \d+ bytes$/,
    );
    await expect(raw.getByRole('list', { name: 'Frames as received' }).locator('li').first()).toContainText(
      'event: message_start',
    );
    await expect(raw.getByRole('list', { name: 'Frames as received' }).locator('li').last()).toContainText(
      'event: message_stop',
    );
    await shot('chat-unreadable-reply');
  });
});
