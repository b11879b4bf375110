// The Messages screen's search, export and deletion in Chromium against `serve --emulator`: contacts
// write to two agents; the search field (with one agent picked) finds the messages of both, their
// matches marked, and a number written "+1 555 010 7777" finds its contact; a hit opens its
// conversation; Export downloads the conversation as CSV, JSON lines and plain text; "Everything of
// …" deletes a contact's conversations with every agent after a confirmation that says it is removed
// for good. Screenshots at 1280×800 and 1024×700, light and dark; no serious or critical axe violation.
import { readFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { AGENTS, LABELS, control, hostCall, open, useServe, type Suite } from './support/kit';

const EXTRA = 'agent-extra';
const EXTRA_LABEL = 'Extra line';
const DANA = '+15550107777';
const LEE = '+15550108888';

/** Points the agent's webhook at the app's receiver, so what contacts write reaches the app. */
async function receiveFor(suite: Suite, agentId: string): Promise<void> {
  await expect
    .poll(async () => (await hostCall<{ listenUrl: string | null }>(suite.ready, 'tunnel.status')).listenUrl, {
      timeout: 10_000,
    })
    .not.toBeNull();
  const { listenUrl } = await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status');
  await hostCall(suite.ready, 'webhook.register', {
    teamId: suite.teamId,
    agentId,
    publicUrl: `${listenUrl}/hooks/${agentId}`,
  });
}

/** Screenshots at 1280×800 and 1024×700, light and dark; axe at both sizes in light and dark. */
async function looksAndAxe(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1024, height: 700 },
  ])
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: testInfo.outputPath(`${name}-${size.width}x${size.height}-${scheme}.png`) });
      const results = await new AxeBuilder({ page }).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const said = bad
        .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}`).join('\n')}`)
        .join('\n');
      expect.soft(bad, `axe violations on ${name} (${size.width}, ${scheme}):\n${said}`).toEqual([]);
    }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Exports the open conversation in one format; answers the downloaded file's name and content. */
async function exported(page: Page, format: string): Promise<{ name: string; content: string }> {
  await page.getByText('Export', { exact: true }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: format }).click();
  const download = await downloading;
  return { name: download.suggestedFilename(), content: await readFile(await download.path(), 'utf8') };
}

test.describe.serial('messages: search, export, deletion', () => {
  const suite = useServe();
  const inboxHash = (agentId: string, contact?: string) =>
    `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${encodeURIComponent(agentId)}${contact ? `&with=${encodeURIComponent(contact)}` : ''}`;
  const search = (page: Page) => page.getByRole('searchbox', { name: 'Search' });
  const messagesFound = (page: Page) => page.getByRole('list', { name: 'Messages found' });
  const contactsFound = (page: Page) => page.getByRole('list', { name: 'Contacts found' });

  test.beforeAll(async () => {
    await control(suite, 'teams/demo/agents', {
      agentId: EXTRA,
      label: EXTRA_LABEL,
      state: 'connected',
      phone: '15550100009',
    });
    await hostCall(suite.ready, 'agents.add', { teamId: suite.teamId, agentId: EXTRA, label: EXTRA_LABEL });
    await receiveFor(suite, AGENTS.connected);
    await receiveFor(suite, EXTRA);
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: DANA, text: 'Do you open on Sundays?' });
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: DANA, text: 'I would like a refund, please.' });
    await control(suite, `agents/${EXTRA}/inbound`, { from: LEE, text: 'My refund has not arrived <b>yet</b>' });
    await control(suite, `agents/${AGENTS.connected}/inbound`, { from: LEE, text: 'Hello from the other line' });
    await expect
      .poll(
        async () =>
          (await hostCall<{ contacts: unknown[] }>(suite.ready, 'messages.contacts', { teamId: suite.teamId })).contacts
            .length,
        { timeout: 15_000 },
      )
      .toBe(3);
  });

  test('the search finds the messages of every agent, their matches marked; a number in any form finds its contact; a hit opens its conversation', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite, inboxHash(AGENTS.connected));
    await expect(page.locator('a.messages-contact')).toHaveCount(2, { timeout: 15_000 });

    // "refund", with Support bot picked: the message written to Extra line is found too.
    await search(page).fill('refund');
    const hits = messagesFound(page).getByRole('link');
    await expect(hits).toHaveCount(2);
    await expect(messagesFound(page).locator('mark')).toHaveText(['refund', 'refund']);
    const lee = hits.filter({ hasText: EXTRA_LABEL });
    await expect(lee).toContainText('My refund has not arrived <b>yet</b>');
    await expect(lee.locator('b')).toHaveCount(0);
    await expect(hits.filter({ hasText: LABELS.connected })).toContainText('I would like a refund, please.');
    await looksAndAxe(page, testInfo, 'messages-search');

    // A number as people write it.
    await search(page).fill('+1 555 010 7777');
    const contacts = contactsFound(page).getByRole('link');
    await expect(contacts).toHaveCount(1);
    await expect(contacts.locator('mark')).toHaveText('15550107777');
    await expect(contacts).toHaveAttribute('href', new RegExp(`with=${encodeURIComponent(DANA)}`));
    await search(page).fill('(555) 010-8888');
    await expect(contactsFound(page).getByRole('link')).toHaveCount(2);
    await search(page).fill('no such words anywhere');
    await expect(page.getByText('No conversation matches.')).toBeVisible();

    // A hit opens its conversation, with the other agent.
    await search(page).fill('refund');
    await hits.filter({ hasText: EXTRA_LABEL }).click();
    await expect(page).toHaveURL(new RegExp(`agent=${EXTRA}&with=${encodeURIComponent(LEE)}`));
    const thread = page.locator('section.messages-thread');
    await expect(thread.getByRole('heading', { name: LEE })).toBeVisible();
    await expect(thread.locator('li.messages-bubble')).toContainText(['My refund has not arrived <b>yet</b>']);
    await expect(hits.filter({ hasText: EXTRA_LABEL })).toHaveAttribute('aria-current', 'true');
    await looksAndAxe(page, testInfo, 'messages-search-open');
  });

  test('Export downloads the open conversation as CSV, JSON lines and plain text', async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite, inboxHash(AGENTS.connected, DANA));
    await expect(page.locator('section.messages-thread li.messages-bubble')).toHaveCount(2, { timeout: 15_000 });

    const csv = await exported(page, 'CSV (.csv)');
    expect(csv.name).toMatch(/\.csv$/);
    const lines = csv.content.split('\r\n');
    expect(lines[0]).toBe('receivedAt,eventAt,direction,fromMe,type,text,filename,mediaUrl,status,messageId,simulated');
    expect(lines.filter((l) => l.includes(',in,'))).toHaveLength(2);
    expect(csv.content).toContain('Do you open on Sundays?');
    expect(csv.content).toContain('"I would like a refund, please."');

    const jsonl = await exported(page, 'JSON lines (.jsonl)');
    expect(jsonl.name).toMatch(/\.jsonl$/);
    const rows = jsonl.content
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; direction: string; agentId: string });
    expect(rows.map((r) => r.text)).toEqual(['Do you open on Sundays?', 'I would like a refund, please.']);
    expect(rows.every((r) => r.direction === 'in' && r.agentId === AGENTS.connected)).toBe(true);

    const text = await exported(page, 'Plain text (.txt)');
    expect(text.name).toMatch(/\.txt$/);
    expect(text.content).toContain('Do you open on Sundays?');
    expect(text.content).toContain('I would like a refund, please.');
    expect(text.content).not.toContain('Hello from the other line');

    await page.getByText('Export', { exact: true }).click();
    await expect(page.getByRole('button', { name: 'CSV (.csv)' })).toBeVisible();
    await looksAndAxe(page, testInfo, 'messages-export-menu');
  });

  test("deleting a contact's data: asked first, said to be for good; its conversations with every agent go", async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await open(page, suite, inboxHash(AGENTS.connected, LEE));
    const thread = page.locator('section.messages-thread');
    await expect(thread.locator('li.messages-bubble')).toContainText(['Hello from the other line'], {
      timeout: 15_000,
    });

    await thread.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByRole('group', { name: /Delete the conversation with/ })).toContainText(
      'removed for good from this computer',
    );
    await page.getByRole('button', { name: `Everything of ${LEE}…` }).click();
    const ask = page.getByRole('group', { name: new RegExp(`Delete everything of \\${LEE}`) });
    await expect(ask).toContainText('every agent');
    await expect(ask).toContainText('removed for good from this computer');
    await looksAndAxe(page, testInfo, 'messages-delete-contact');
    // "Keep it" keeps everything.
    await ask.getByRole('button', { name: 'Keep it' }).click();
    await expect(ask).toHaveCount(0);
    await expect(thread.locator('li.messages-bubble')).toHaveCount(1);

    await thread.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: `Everything of ${LEE}…` }).click();
    await page.getByRole('button', { name: `Delete everything of ${LEE}` }).click();
    await expect(page.getByText('Choose a conversation.')).toBeVisible();
    await expect(page.locator(`a.messages-contact[href*="with=${encodeURIComponent(LEE)}"]`)).toHaveCount(0);
    // Gone with the other agent too: the search finds only Dana's refund.
    await search(page).fill('refund');
    await expect(messagesFound(page).getByRole('link')).toHaveCount(1);
    await expect(messagesFound(page).getByRole('link')).toContainText('I would like a refund, please.');
    const all = await hostCall<{ contacts: Array<{ contact: string }> }>(suite.ready, 'messages.contacts', {
      teamId: suite.teamId,
    });
    expect(all.contacts.map((c) => c.contact)).toEqual([DANA]);
  });
});
