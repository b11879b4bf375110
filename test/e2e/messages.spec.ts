// The Messages screen in Chromium against `serve --emulator`, with no setup: the demo agents'
// webhooks point at the app's receiver from the start. A contact writes (the emulator's control API):
// the conversation appears live with an unread count, which opening it clears; a reply from the
// composer, and the scripted contact's answer shown live; a local name; search; a restart of the host
// keeps every message (the index is rebuilt from the logs); the notice for an agent whose webhook this
// install has not registered, with its link to the Tunnel screen; a simulated message marked, with no
// Reply box; deleting a conversation and every message of an agent, each after its confirmation. No
// serious or critical axe violation in light and dark; screenshots at 1280×800 and 1024×700, light and dark.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import {
  emulatorControl,
  hostCall,
  keychainUnavailableReason,
  makeServeHome,
  startServe,
  type RunningServe,
  type ServeHome,
} from './support/serve';

const AGENT = 'agent-connected';
const LABEL = 'Support bot';
/** The demo team's scripted contact: it answers every message an agent sends it ("You said: …"). */
const ROBIN = '+15550100042';
const SERVE_ARGS = ['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'];
const ci = !!process.env.CI && process.env.CI !== 'false';
const noKeychain = keychainUnavailableReason();

/** A loopback port free now: the receiver's own, so that no other run on this machine holds it. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let home: ServeHome;
let serve: RunningServe;

const teamId = () => serve.ready.demoTeam!.teamId;
const emulator = () => serve.ready.emulator!;
const inboxHash = (agentId = AGENT, contact?: string) =>
  `#/messages?team=${encodeURIComponent(teamId())}&agent=${encodeURIComponent(agentId)}${contact ? `&with=${encodeURIComponent(contact)}` : ''}`;
/** A contact's row in the inbox, by its number (its name may replace the number on screen). */
const contactRow = (page: Page, phone: string) =>
  page.locator(`a.messages-contact[href*="with=${encodeURIComponent(phone)}"]`);
const thread = (page: Page) => page.locator('section.messages-thread');
const bubbles = (page: Page) => thread(page).locator('li.messages-bubble');

async function openApp(page: Page, hash: string): Promise<void> {
  await page.goto(serve.ready.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Channel Companion' })).toBeVisible();
  await page.waitForFunction(() => !location.hash.includes('token='));
  await page.evaluate((h) => {
    window.location.hash = h;
  }, hash);
  await expect(page.getByRole('heading', { level: 2, name: 'Messages' })).toBeVisible();
}

function inbound(from: string, text: string, agentId = AGENT) {
  return emulatorControl<{ messageId: string; deliveryId: string | null }>(emulator(), `agents/${agentId}/inbound`, {
    from,
    text,
  });
}

/** Screenshots at 1280×800 and 1024×700, light and dark, and axe in light and dark. */
async function looksAndAxe(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1024, height: 700 },
  ])
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: testInfo.outputPath(`${name}-${size.width}x${size.height}-${scheme}.png`) });
      if (size.width === 1280) {
        const results = await new AxeBuilder({ page }).analyze();
        const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        const said = bad
          .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}`).join('\n')}`)
          .join('\n');
        expect.soft(bad, `axe violations on ${name} (${scheme}):\n${said}`).toEqual([]);
      }
    }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe.serial('messages', () => {
  test.skip(!ci && noKeychain !== null, `OS keychain unavailable: ${noKeychain}`);

  test.beforeAll(async () => {
    if (ci && noKeychain !== null) throw new Error(`OS keychain unavailable in CI: ${noKeychain}`);
    home = makeServeHome();
    // The receiver's port, fixed for this home (the default one may be held by another run).
    writeFileSync(
      path.join(home.configDir, 'config.json'),
      JSON.stringify({
        schemaVersion: 1,
        settings: { installId: 'e2e-messages-install', tunnelPort: await freePort() },
        teams: [],
      }),
      { mode: 0o600 },
    );
    serve = await startServe(['--port', '0', ...SERVE_ARGS], home);
  });

  test.afterAll(async () => {
    const code = await serve?.stop();
    home?.remove();
    expect(code, 'serve stops cleanly on SIGTERM').toBe(0);
  });

  test('a contact writes: live with an unread count; opening reads it; a reply and the scripted answer; a name; search', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, inboxHash());
    // Registered at the demo's start: no notice for the demo agent, and an empty inbox says so.
    await expect(page.getByText('No messages yet.')).toBeVisible();
    await expect(page.locator('.messages-gap')).toHaveCount(0);

    // A contact writes: the conversation appears live, with its unread count and first line.
    await inbound(ROBIN, 'Hi, is my order on its way?');
    const row = contactRow(page, ROBIN);
    await expect(row).toContainText('Hi, is my order on its way?');
    await expect(row.getByLabel('1 unread')).toHaveText('1');
    await inbound(ROBIN, 'It was due yesterday.');
    await expect(row.getByLabel('2 unread')).toHaveText('2');
    await expect(row).toContainText('It was due yesterday.');

    // Opening the thread shows the messages and clears the unread count. Focus goes to the thread's
    // heading (a screen reader says which conversation opened), not back to the page's.
    await row.click();
    await expect(thread(page).getByRole('heading', { name: ROBIN })).toBeVisible();
    await expect(thread(page).getByRole('heading', { name: ROBIN })).toBeFocused();
    await expect(bubbles(page)).toHaveText([/Hi, is my order on its way\?/, /It was due yesterday\./]);
    await expect(row.locator('.count')).toHaveCount(0);
    await expect(row).toHaveAttribute('aria-current', 'true');

    // A reply from the composer: sent, and the scripted contact's answer arrives live.
    await page.getByLabel('Reply').fill('It ships today.');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByLabel('Reply')).toHaveValue('');
    const out = bubbles(page).filter({ hasText: 'It ships today.' }).first();
    await expect(out).toHaveClass(/\bout\b/);
    await expect(out).toContainText('· sent');
    const answer = bubbles(page).filter({ hasText: 'You said: It ships today.' });
    await expect(answer).toHaveClass(/\bin\b/, { timeout: 15_000 });
    await expect(bubbles(page)).toHaveCount(4);
    // Read while open: the answer leaves no unread count behind.
    await expect(row).toContainText('You said: It ships today.');
    await expect(row.locator('.count')).toHaveCount(0);

    // A local name, shown in the title and the list.
    await thread(page).getByRole('button', { name: 'Name' }).click();
    await page.getByLabel(`Name for ${ROBIN}`).fill('Robin (demo)');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect(thread(page).getByRole('heading', { name: `Robin (demo) (${ROBIN})` })).toBeVisible();
    await expect(row.locator('.messages-contact-name')).toHaveText('Robin (demo)');

    // A second contact, then search over names, numbers and text.
    await inbound('+15550107777', 'Do you open on Sundays?');
    const other = contactRow(page, '+15550107777');
    await expect(other.getByLabel('1 unread')).toBeVisible();
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('robin');
    await expect(page.locator('a.messages-contact')).toHaveCount(1);
    await expect(row).toBeVisible();
    await search.fill('sundays');
    await expect(page.locator('a.messages-contact')).toHaveCount(1);
    await expect(other).toBeVisible();
    await search.fill('0107777');
    await expect(page.locator('a.messages-contact')).toHaveCount(1);
    await expect(other).toBeVisible();
    await search.fill('nothing like this');
    await expect(page.getByText('No conversation matches.')).toBeVisible();
    await search.fill('');
    await expect(page.locator('a.messages-contact')).toHaveCount(2);

    await looksAndAxe(page, testInfo, 'messages-thread');
  });

  test('a restart of the host keeps every message: the index is rebuilt from the logs', async ({ page }) => {
    test.setTimeout(90_000);
    expect(await serve.stop()).toBe(0);
    serve = await startServe(SERVE_ARGS, home);
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, inboxHash(AGENT, ROBIN));
    await expect(thread(page).getByRole('heading', { name: `Robin (demo) (${ROBIN})` })).toBeVisible();
    await expect(bubbles(page)).toHaveText([
      /Hi, is my order on its way\?/,
      /It was due yesterday\./,
      /It ships today\./,
      /You said: It ships today\./,
    ]);
    const other = contactRow(page, '+15550107777');
    await expect(other.getByLabel('1 unread')).toBeVisible();
    // Registered again at this start: what a contact writes now arrives too.
    await inbound('+15550107777', 'Hello again after the restart');
    await expect(other.getByLabel('2 unread')).toBeVisible();
  });

  test('an agent this install has not registered says so, with a link to the Tunnel screen', async ({
    page,
  }, testInfo) => {
    await emulatorControl(emulator(), 'teams/demo/agents', { agentId: 'agent-extra', label: 'Extra line' });
    await hostCall(serve.ready, 'agents.add', { teamId: teamId(), agentId: 'agent-extra', label: 'Extra line' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, '#/messages');
    const notice = page.locator('.messages-gap');
    await expect(notice).toHaveCount(1);
    await expect(notice).toContainText('Extra line:');
    await expect(notice).toContainText('Not registered here');
    await expect(notice).not.toContainText(LABEL);
    await looksAndAxe(page, testInfo, 'messages-gap');
    await notice.getByRole('link', { name: 'Open the Tunnel screen' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook tunnel' })).toBeVisible();
  });

  test("a simulated message (the Tunnel screen's Simulate): marked in the list and the thread, with no Reply box", async ({
    page,
  }, testInfo) => {
    const MADE_UP = '+15550104242';
    await hostCall(serve.ready, 'tunnel.simulate', {
      teamId: teamId(),
      agentId: AGENT,
      type: 'text',
      from: MADE_UP,
      text: 'made up on this machine',
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, inboxHash(AGENT, MADE_UP));
    await expect(contactRow(page, MADE_UP)).toContainText('Simulated');
    await expect(bubbles(page).filter({ hasText: 'made up on this machine' })).toContainText(
      'Simulated, not from WhatsApp',
    );
    await expect(thread(page).getByRole('note')).toContainText('there is no one to reply to');
    await expect(thread(page).getByLabel('Reply')).toHaveCount(0);
    await looksAndAxe(page, testInfo, 'messages-simulated');
  });

  test('delete a conversation, then every message of the agent, each after its confirmation', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, inboxHash(AGENT, '+15550107777'));
    await expect(bubbles(page).first()).toContainText('Do you open on Sundays?');

    // One conversation: asked first; "Keep it" keeps it.
    await thread(page).getByRole('button', { name: 'Delete' }).click();
    const ask = page.getByRole('group', { name: /Delete the conversation with \+15550107777/ });
    await expect(ask).toContainText('It is removed for good from this computer');
    await expect(ask).toContainText('+15550107777 still has the messages on their phone.');
    await ask.getByRole('button', { name: 'Keep it' }).click();
    await expect(ask).toHaveCount(0);
    await expect(contactRow(page, '+15550107777')).toBeVisible();
    await thread(page).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete conversation' }).click();
    await expect(contactRow(page, '+15550107777')).toHaveCount(0);
    await expect(page.getByText('Choose a conversation.')).toBeVisible();
    await expect(contactRow(page, ROBIN)).toBeVisible();

    // Every message of the agent: in the agent's More menu, asked first, then the inbox is empty.
    await expect(page.getByRole('button', { name: 'Delete all messages of this agent' })).toBeHidden();
    await page.getByText('More', { exact: true }).click();
    await page.getByRole('button', { name: 'Delete all messages of this agent' }).click();
    const askAll = page.getByRole('group', { name: new RegExp(`Delete every conversation of ${LABEL}`) });
    await expect(askAll).toBeVisible();
    await askAll.getByRole('button', { name: 'Keep them' }).click();
    await expect(contactRow(page, ROBIN)).toBeVisible();
    await page.getByText('More', { exact: true }).click();
    await page.getByRole('button', { name: 'Delete all messages of this agent' }).click();
    await page.getByRole('button', { name: 'Delete all messages' }).click();
    await expect(page.getByText('No messages yet.')).toBeVisible();
    await expect(page.locator('a.messages-contact')).toHaveCount(0);
    // Gone from the host's answers too, also when the app is opened again.
    await openApp(page, inboxHash());
    await expect(page.getByText('No messages yet.')).toBeVisible();
    const inbox = await hostCall<{ contacts: unknown[] }>(serve.ready, 'messages.contacts', {
      teamId: teamId(),
      agentId: AGENT,
    });
    expect(inbox.contacts).toEqual([]);
  });
});
