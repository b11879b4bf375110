// The chat window in Chromium against `serve --emulator`: a scripted reply streams in
// token by token and ends with exactly the scripted text, with its per-turn numbers; Stop keeps the
// partial text marked stopped; a stream that fails midway shows the error and keeps the typed text;
// HTML and javascript: links in a reply stay text (no dialog); the raw frames toggle; a long
// reply stays in view while it streams unless the person scrolls up; markdown (a table, a task
// list, highlighted code whose Copy fills the clipboard) at 1280 and 1024 px, light and dark;
// Enter while a reply streams queues the message; the conversation list (new, rename, delete,
// search); Escape stops a streaming reply; at 1280×800 and 1024×700 the transcript takes the height
// with the composer at the bottom.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { control, openChatAsNewCustomer, shooter, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';

let suite: Suite;

test.describe('chat window', () => {
  suite = useServe();
  test.afterEach(async () => {
    await control(suite, `agents/${AGENT}/chat-script`, {});
  });

  const lastReply = (page: Page) => page.locator('li.chat-agent').last();
  const uniqueId = () => `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

  async function openChat(page: Page): Promise<void> {
    await openChatAsNewCustomer(page, suite, AGENT);
    await expect(page.getByRole('heading', { name: new RegExp(`Chat with .*${AGENT}`) })).toBeVisible();
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
  }

  /** Records the agent bubble's text at every DOM change, in the page. */
  async function recordBubble(page: Page): Promise<void> {
    await page.evaluate(() => {
      const w = window as unknown as { __seen: string[] };
      w.__seen = [];
      const list = document.querySelector('.chat-list');
      if (!list) throw new Error('no chat list');
      new MutationObserver(() => {
        const rows = list.querySelectorAll('li.chat-agent .chat-bubble .md');
        const last = rows[rows.length - 1];
        const t = last?.textContent ?? '';
        if (w.__seen[w.__seen.length - 1] !== t) w.__seen.push(t);
      }).observe(list, { childList: true, subtree: true, characterData: true });
    });
  }

  test('a scripted reply streams token by token, ends exactly, and shows its numbers', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const tokens = [
      'Your ',
      'order ',
      '#4521 ',
      'shipped ',
      'on ',
      'Monday ',
      'and ',
      'should ',
      'arrive ',
      'by ',
      'Thursday. ',
      'Anything ',
      'else ',
      'I ',
      'can ',
      'check?',
    ];
    const full = tokens.join('');
    await control(suite, `agents/${AGENT}/chat-script`, {
      tokens,
      tokenDelayMs: 30,
      actions: [{ name: 'lookup_order' }],
    });
    await openChat(page);
    await shot('chat-empty');
    await recordBubble(page);

    await send(page, 'Where is my order?');
    await expect(page.locator('li.chat-user').last()).toContainText('Where is my order?');
    // Midway: some of the reply, not all of it, and the turn still running.
    await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming');
    await expect
      .poll(async () => (await lastReply(page).locator('.chat-bubble').innerText()).length, { timeout: 5000 })
      .toBeGreaterThan(5);
    await shot('chat-streaming');

    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
    await expect(lastReply(page).locator('.chat-bubble .md')).toHaveText(full);
    expect(await lastReply(page).locator('.chat-bubble .md').textContent()).toBe(full);

    // Token by token: the bubble grew through several prefixes of the final text.
    const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.filter((t) => t !== ''));
    expect(seen.length, `bubble states: ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(4);
    for (const s of seen) expect(full.startsWith(s), `"${s}" is a prefix of the reply`).toBe(true);
    expect(seen[seen.length - 1]).toBe(full);

    // Per-turn numbers: conversation id, actions, tokens, time to first token.
    const meta = lastReply(page).locator('.chat-meta');
    await expect(meta).toContainText(/conversation conv_[0-9a-f]+/);
    await expect(meta).toContainText('actions: lookup_order');
    await expect(meta).toContainText(/\d+ tokens used/);
    await expect(meta).toContainText(/first token \d+ ms/);
    await expect(meta).toContainText('Done');
    await expect(page.getByRole('status').filter({ hasText: 'Agent replied' })).toHaveText(`Agent replied: ${full}`);
    await shot('chat-done-with-numbers');

    // Raw frames: the SSE frames as received (event, data), in order, with their offsets: one per
    // token, then the done frame.
    await page.getByLabel('Show raw stream frames').check();
    const frames = lastReply(page).locator('.chat-frames');
    await expect(frames.locator('summary')).toHaveText(`Raw stream: ${tokens.length + 1} frames as received`);
    await expect(frames.locator('li')).toHaveCount(tokens.length + 1);
    await expect(frames.locator('li').first()).toContainText('event: token');
    await expect(frames.locator('li').first()).toContainText(`data: ${JSON.stringify({ token: tokens[0] })}`);
    await expect(frames.locator('li').first()).toContainText(/\+\d+ ms/);
    await expect(frames.locator('li').nth(tokens.length - 1)).toContainText(
      `data: ${JSON.stringify({ token: tokens[tokens.length - 1] })}`,
    );
    await expect(frames.locator('li').last()).toContainText('event: done');
    await shot('chat-raw-frames');
    await page.getByLabel('Show raw stream frames').uncheck();
    await expect(page.locator('.chat-frames')).toHaveCount(0);
  });

  test('Stop keeps the partial text and marks it stopped', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const tokens = Array.from({ length: 60 }, (_, i) => `word${i} `);
    const full = tokens.join('');
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 150 });
    await openChat(page);
    await send(page, 'Tell me a long story');
    await expect
      .poll(async () => (await lastReply(page).locator('.chat-bubble .md').textContent()) ?? '', { timeout: 10_000 })
      .toMatch(/word3 /);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(lastReply(page)).toHaveAttribute('data-status', 'stopped');
    await expect(lastReply(page).locator('.chat-meta')).toContainText('Stopped');
    const partial = (await lastReply(page).locator('.chat-bubble .md').textContent()) ?? '';
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(full.length);
    expect(full.startsWith(partial)).toBe(true);
    // The stream is closed at the service (its 60 tokens would take 9 s), and nothing more arrives.
    const activeStreams = async () =>
      (await control<{ counters: { activeStreams: number } }>(suite, '/state', undefined, 'GET')).counters
        .activeStreams;
    await expect.poll(activeStreams, { timeout: 5_000 }).toBe(0);
    expect(await lastReply(page).locator('.chat-bubble .md').textContent()).toBe(partial);
    await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled(); // empty box
    await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
    await shot('chat-stopped');
  });

  test('Escape in the message box stops a streaming reply', async ({ page }) => {
    const tokens = Array.from({ length: 60 }, (_, i) => `word${i} `);
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 150 });
    await openChat(page);
    await send(page, 'Tell me a long story');
    await expect
      .poll(async () => (await lastReply(page).locator('.chat-bubble .md').textContent()) ?? '', { timeout: 10_000 })
      .toMatch(/word3 /);
    await page.getByLabel('Message', { exact: true }).press('Escape');
    await expect(lastReply(page)).toHaveAttribute('data-status', 'stopped');
    await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  });

  for (const size of [
    { width: 1280, height: 800 },
    { width: 1024, height: 700 },
  ]) {
    test(`at ${size.width}×${size.height} the transcript takes the height and the composer stays at the bottom`, async ({
      page,
    }, testInfo) => {
      const shot = shooter(page, testInfo);
      await page.setViewportSize(size);
      await openChat(page);
      const list = await page.locator('.chat-list').boundingBox();
      const actions = await page.locator('form.chat-composer').boundingBox();
      if (!list || !actions) throw new Error('the transcript or the composer is not laid out');
      // The composer (its buttons, then the keys' hint) ends inside the window, within a few lines
      // of its bottom edge, and the transcript has the rest: more than a third of the window's height.
      expect(actions.y + actions.height).toBeLessThanOrEqual(size.height);
      expect(size.height - (actions.y + actions.height)).toBeLessThan(48);
      expect(list.height).toBeGreaterThan(size.height / 3);
      // The page itself does not scroll: the transcript does.
      expect(await page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight + 1)).toBe(true);
      await shot(`chat-layout-${size.width}`);
    });
  }

  test('a stream that fails midway shows the error and keeps the typed text', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const tokens = ['Let ', 'me ', 'look ', 'that ', 'up ', 'for ', 'you'];
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 30, failAfterTokens: 3 });
    await openChat(page);
    const typed = 'Can you refund order 4521?';
    await send(page, typed);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'error', { timeout: 10_000 });
    await expect(lastReply(page).locator('.chat-meta')).toContainText('Failed');
    await expect(lastReply(page).locator('.chat-meta .error')).toContainText(/STREAM_FAILED|stream failed/i);
    // What streamed before the failure stays; the question stays in the conversation and the box.
    await expect(lastReply(page).locator('.chat-bubble .md')).toHaveText('Let me look ');
    await expect(page.locator('li.chat-user').last()).toHaveText(/Can you refund order 4521\?/);
    await expect(page.getByLabel('Message', { exact: true })).toHaveValue(typed);
    await expect(page.getByRole('button', { name: 'Retry last message' })).toBeEnabled();
    await shot('chat-failed-midway');

    // The service refuses the turn (503 before any token): the error shows, the text is kept.
    await control(suite, `agents/${AGENT}/chat-script`, { status: 503 });
    await page.getByLabel('Message', { exact: true }).fill('Second try');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(lastReply(page)).toHaveAttribute('data-status', 'error', { timeout: 10_000 });
    await expect(lastReply(page).locator('.chat-meta .error')).toContainText('HTTP 503');
    await expect(lastReply(page).locator('.chat-bubble')).toContainText('No reply');
    await expect(page.getByLabel('Message', { exact: true })).toHaveValue('Second try');
    await shot('chat-refused');
  });

  test('a long reply stays in view while it streams, unless you scroll up', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    // Long enough (8 s) that the reply is still growing through every step below, even on a busy machine.
    const tokens = Array.from({ length: 320 }, (_, i) => `Paragraph ${i + 1} of the long answer.\n\n`);
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokensPerSecond: 40 });
    await openChat(page);
    await send(page, 'Explain everything');
    const list = page.locator('.chat-list');
    const gap = () =>
      list.evaluate((el) => ({
        fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight,
        overflow: el.scrollHeight - el.clientHeight,
        top: el.scrollTop,
      }));
    // The reply outgrows the list and the view follows it down.
    await expect.poll(async () => (await gap()).overflow, { timeout: 10_000 }).toBeGreaterThan(200);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming');
    expect((await gap()).fromBottom).toBeLessThanOrEqual(24);
    await shot('chat-following');

    // Even a short scroll up (a line or two, to reread) is respected: the view is not pulled back.
    await list.hover();
    await page.mouse.wheel(0, -60);
    await expect.poll(async () => (await gap()).fromBottom).toBeGreaterThan(30);
    const heldAt = (await gap()).top;
    const sizeThen = (await gap()).overflow;
    await expect.poll(async () => (await gap()).overflow, { timeout: 10_000 }).toBeGreaterThan(sizeThen + 60);
    expect((await gap()).top).toBe(heldAt);

    // Scrolled up to read: the view stays where the person put it while text keeps arriving.
    await page.mouse.wheel(0, -100_000);
    await expect.poll(async () => (await gap()).top).toBe(0);
    const grownFrom = (await gap()).overflow;
    await expect.poll(async () => (await gap()).overflow, { timeout: 10_000 }).toBeGreaterThan(grownFrom + 100);
    expect((await gap()).top).toBe(0);
    await shot('chat-scrolled-up');

    // Back at the bottom, it follows again until the end (on a busy machine the reply may have ended
    // by now, and the browser's scroll can stop short of a height it has not caught up with: the view
    // still ends at the bottom).
    await page.mouse.wheel(0, 1_000_000);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
    await expect(lastReply(page).locator('.chat-bubble .md')).toContainText('Paragraph 320 of the long answer.');
    await expect.poll(async () => (await gap()).fromBottom).toBeLessThanOrEqual(24);
  });

  test('a long paragraph is laid out a few lines at a time while it streams, and looks the same as in one block', async ({
    page,
    context,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const words = [
      'the',
      'streamed',
      'paragraph',
      'goes',
      'on,',
      'with',
      'words',
      'of',
      'every',
      'length:',
      'incomprehensibilities',
      'a',
      'x',
    ];
    const tokens = ['**Lead-in** with a [link](https://example.test/doc) and then '];
    // 18 s of stream: still streaming through every step below on a busy machine.
    for (let i = 0; i < 3600; i++) tokens.push(`${words[(i * 7) % words.length]} `);
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokensPerSecond: 200 });
    await openChat(page);
    await send(page, 'Tell me at length');
    const live = lastReply(page).locator('p.md-live');
    await expect.poll(() => live.locator('.md-run').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming');
    // In one synchronous look (the paragraph changes every frame): the same paragraph with its runs
    // unwrapped, laid out in the same place as one block, is exactly as tall, and each run after the
    // first starts a line there too: the runs were cut where the browser breaks the lines.
    const lookAt = () =>
      live.evaluate((p) => {
        const flat = p.cloneNode(true) as HTMLElement;
        flat.classList.remove('md-live');
        const starts: Node[] = [];
        for (const [i, run] of [...flat.querySelectorAll('.md-run')].entries()) {
          if (i > 0 && run.firstChild) starts.push(run.firstChild);
          run.replaceWith(...run.childNodes);
        }
        p.after(flat);
        const left = flat.getBoundingClientRect().left;
        const range = document.createRange();
        const offsets = starts.map((node) => {
          range.setStart(node, 0);
          range.setEnd(node, 1);
          return range.getBoundingClientRect().left - left;
        });
        const out = {
          runStartsFromLineStart: offsets,
          runs: p.querySelectorAll('.md-run').length,
          width: p.getBoundingClientRect().width,
          height: p.getBoundingClientRect().height,
          flatHeight: flat.getBoundingClientRect().height,
          lineHeight: parseFloat(getComputedStyle(p).lineHeight),
          sameText: flat.textContent === p.textContent,
          boldInFirstRun: p.querySelector('.md-run:first-child strong')?.textContent ?? null,
        };
        flat.remove();
        return out;
      });
    const look = await lookAt();
    expect(look.runs).toBeGreaterThanOrEqual(3);
    expect(look.sameText).toBe(true);
    expect(look.boldInFirstRun).toBe('Lead-in');
    expect(look.height).toBeGreaterThan(look.lineHeight * 20);
    expect(Math.abs(look.height - look.flatHeight)).toBeLessThan(1);
    expect(look.runStartsFromLineStart.length).toBe(look.runs - 1);
    for (const x of look.runStartsFromLineStart) expect(Math.abs(x)).toBeLessThan(1);
    await shot('chat-long-paragraph-streaming');
    // Narrower while it streams: the lines break elsewhere, so the runs are cut again to match.
    await page.setViewportSize({ width: 1024, height: 800 });
    const matches = (l: typeof look) =>
      l.width < look.width &&
      Math.abs(l.height - l.flatHeight) < 1 &&
      l.runStartsFromLineStart.every((x) => Math.abs(x) < 1);
    await expect.poll(async () => matches(await lookAt()), { timeout: 10_000 }).toBe(true);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming');
    // Done: the same runs (nothing is laid out again when the reply ends); selected and copied, its
    // text reads one paragraph, with no line break between them.
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    const para = lastReply(page).locator('.md > p');
    const whole = tokens
      .join('')
      .replace(/\*\*|\[|\]\(https:\/\/example\.test\/doc\)/g, '')
      .trim();
    await expect(para).toHaveText(whole);
    expect(await para.locator('.md-run').count()).toBeGreaterThanOrEqual(3);
    await para.evaluate((p) => getSelection()!.selectAllChildren(p));
    await page.keyboard.press('Control+C');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(whole);
    // Blocks again after the copy.
    await expect(para.locator('.md-run').first()).toHaveCSS('display', 'block');
    await page.evaluate(() => getSelection()!.removeAllRanges());
    // Narrower again: the lines break elsewhere now, so it is one block.
    await page.setViewportSize({ width: 900, height: 800 });
    await expect(para.locator('.md-run')).toHaveCount(0);
    await expect(para).toHaveText(whole);
  });

  test('HTML and javascript: links in a reply render as text', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const reply =
      'Here: <img src=x onerror=alert(1)> and [click me](javascript:alert(2)) and <script>alert(3)</script> and [docs](https://example.com/docs)';
    await control(suite, `agents/${AGENT}/chat-script`, { reply, tokenDelayMs: 10 });
    await openChat(page);
    await send(page, 'show me something dangerous');
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 10_000 });
    const md = lastReply(page).locator('.chat-bubble .md');
    await expect(md).toContainText('<img src=x onerror=alert(1)>');
    await expect(md).toContainText('[click me](javascript:alert(2))');
    await expect(md).toContainText('<script>alert(3)</script>');
    expect(await page.locator('.chat-list img, .chat-list script').count()).toBe(0);
    const hrefs = await md.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual(['https://example.com/docs']);
    await md.getByText(/click me/).click();
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await shot('chat-markdown-safety');
  });
  /** Screenshots of the page at 1280 and 1024 px wide, in light and in dark. */
  async function shootSizes(page: Page, shot: (name: string) => Promise<void>, name: string): Promise<void> {
    for (const width of [1280, 1024]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await shot(`${name}-${width}-${scheme}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  const MARKDOWN_CODE = 'function total(items) {\n  return items.reduce((sum, i) => sum + i.price, 0); // in cents\n}';
  const MARKDOWN_REPLY = [
    '## Order 4521',
    '',
    'Here is what I found, **shipped on Monday**:',
    '',
    '| Item | Qty | Price |',
    '|:-----|:---:|------:|',
    '| Blue mug | 2 | $18.00 |',
    '| Tea, *green* | 1 | $6.50 |',
    '',
    '- [x] Payment received',
    '- [ ] Delivered',
    '',
    '> Carrier: `UPS 1Z999`',
    '',
    '```js',
    MARKDOWN_CODE,
    '```',
    '',
    'Track it at [the carrier](https://example.com/track).',
  ].join('\n');

  test('markdown: a table, a task list and highlighted code whose Copy fills the clipboard', async ({
    page,
    context,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await control(suite, `agents/${AGENT}/chat-script`, { reply: MARKDOWN_REPLY, tokenDelayMs: 15 });
    await openChat(page);
    await send(page, 'What happened to order 4521?');
    // Midway the reply already shows as markdown (never as raw text first).
    await expect(lastReply(page).locator('.md h4')).toHaveText('Order 4521', { timeout: 10_000 });
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 15_000 });
    const md = lastReply(page).locator('.md');
    expect(await md.evaluate((el) => el.textContent ?? '')).not.toContain('##');

    const table = md.getByRole('group', { name: 'Table: Item, Qty, Price' }).locator('table');
    await expect(table.locator('th')).toHaveText(['Item', 'Qty', 'Price']);
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await expect(table.locator('tbody tr').nth(1).locator('td')).toHaveText(['Tea, green', '1', '$6.50']);
    await expect(table.locator('tbody em')).toHaveText('green');
    expect(
      await table
        .locator('th')
        .nth(2)
        .evaluate((el) => getComputedStyle(el).textAlign),
    ).toBe('right');
    await expect(md.getByRole('checkbox', { name: 'Done', exact: true })).toBeChecked();
    await expect(md.getByRole('checkbox', { name: 'Not done' })).not.toBeChecked();
    await expect(md.locator('blockquote code')).toHaveText('UPS 1Z999');
    await expect(md.getByRole('link', { name: 'the carrier' })).toHaveAttribute('target', '_blank');

    const code = md.locator('.md-code pre');
    await expect(code).toHaveAttribute('data-highlighted', 'true');
    await expect(code).toHaveText(MARKDOWN_CODE);
    await expect(code.locator('.hljs-keyword').first()).toHaveText('function');
    await expect(code.locator('.hljs-comment')).toHaveText('// in cents');
    await md.getByRole('button', { name: 'Copy js code' }).click();
    await expect(md.getByRole('button', { name: 'Copy js code' })).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(MARKDOWN_CODE);
    // The reply's own Copy takes the whole reply as written.
    await lastReply(page).getByRole('button', { name: 'Copy reply' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(MARKDOWN_REPLY);
    await shootSizes(page, shot, 'chat-markdown');
  });

  test('Enter while a reply streams queues the message, shows it with Cancel, and sends it when the reply ends', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    // 9 s of reply: still streaming through the queueing, the screenshots and the Cancel on a busy machine.
    const tokens = Array.from({ length: 30 }, (_, i) => `step${i} `);
    await control(suite, `agents/${AGENT}/chat-script`, { tokens, tokenDelayMs: 300 });
    await openChat(page);
    await send(page, 'First question');
    await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming');
    const box = page.getByLabel('Message', { exact: true });
    await expect(page.locator('#chat-input-hint')).toHaveText(
      'A reply is coming: Enter queues your message, and it is sent when the reply ends; Escape stops the reply.',
    );
    await box.fill('Second question');
    await box.press('Enter');
    await box.fill('Third question');
    await box.press('Enter');
    const queued = page.locator('li.chat-queued');
    await expect(queued).toHaveCount(2);
    await expect(queued.first()).toContainText('Second question');
    await expect(queued.first()).toContainText('Sends when the reply ends.');
    await expect(box).toHaveValue('');
    await shot('chat-queued');
    await queued
      .nth(1)
      .getByRole('button', { name: /^Cancel queued message/ })
      .click();
    await expect(queued).toHaveCount(1);

    // The first reply ends; the queued message goes out and gets its own reply.
    await expect(queued).toHaveCount(0, { timeout: 20_000 });
    await expect(page.locator('li.chat-user .chat-bubble')).toHaveText(['First question', 'Second question']);
    await expect(page.locator('li.chat-agent')).toHaveCount(2);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
    await expect(page.locator('li.chat-user', { hasText: 'Third question' })).toHaveCount(0);
    await shot('chat-queue-sent');
  });

  test('conversations: new, rename, delete and search, kept across a reload', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const tag = uniqueId();
    await control(suite, `agents/${AGENT}/chat-script`, { reply: 'Noted.', tokenDelayMs: 5 });
    await openChat(page);
    const side = page.getByRole('navigation', { name: 'Conversations' });
    const item = (name: string | RegExp): Locator =>
      side.locator('button.chat-conv', { has: page.locator('.chat-conv-name', { hasText: name }) });

    await send(page, `Where is my parcel ${tag}?`);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done');
    await expect(item(`Where is my parcel ${tag}?`)).toHaveAttribute('aria-current', 'true');

    await side.getByRole('button', { name: 'New conversation', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'New conversation' })).toBeVisible();
    await expect(page.getByText('No messages yet. Say hello.')).toBeVisible();
    await send(page, `Cancel my subscription ${tag}`);
    await expect(lastReply(page)).toHaveAttribute('data-status', 'done');
    await expect(item(`Cancel my subscription ${tag}`)).toHaveAttribute('aria-current', 'true');

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Conversation name').fill(`Subscription ${tag}`);
    await page.getByLabel('Conversation name').press('Enter');
    await expect(page.getByRole('heading', { name: `Subscription ${tag}` })).toBeVisible();
    await expect(item(`Subscription ${tag}`)).toBeVisible();

    // Search: by name here, by message text through the app.
    const search = side.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill(`parcel ${tag}`);
    await expect(side.locator('button.chat-conv')).toHaveCount(1);
    await expect(item(`Where is my parcel ${tag}?`)).toBeVisible();
    await search.fill('noted.');
    await expect(item(`Subscription ${tag}`)).toBeVisible();
    await expect(item(`Subscription ${tag}`)).toContainText('Noted.');
    await search.fill(`Subscription ${tag}`);
    await expect(side.locator('button.chat-conv')).toHaveCount(1);
    await shootSizes(page, shot, 'chat-conversations-search');
    await search.fill('');

    // Delete the parcel conversation: it leaves the list and its transcript.
    await item(`Where is my parcel ${tag}?`).click();
    await expect(page.getByRole('heading', { name: `Where is my parcel ${tag}?` })).toBeVisible();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByText('The service keeps its own record of the conversation')).toBeVisible();
    await shot('chat-delete-confirm');
    await page.getByRole('button', { name: 'Delete conversation' }).click();
    await expect(item(`Where is my parcel ${tag}?`)).toHaveCount(0);
    await search.fill(`parcel ${tag}`);
    await expect(side.getByText(`No conversation matches “parcel ${tag}”.`)).toBeVisible();

    // After a reload: the name is kept, the deleted conversation stays gone.
    await page.reload();
    await expect(page.getByRole('heading', { name: new RegExp(`Chat with .*${AGENT}`) })).toBeVisible();
    await expect(item(`Subscription ${tag}`)).toBeVisible();
    await expect(item(`Where is my parcel ${tag}?`)).toHaveCount(0);
    await item(`Subscription ${tag}`).click();
    await expect(page.locator('li.chat-user .chat-bubble')).toHaveText([`Cancel my subscription ${tag}`]);
  });
});
