// The webhook tunnel inspector in Chromium against `serve --emulator`: each agent's hook URLs with
// copy buttons (read back from the clipboard); what is known of each registration; "Register this
// receiver" after a confirm step that says what stops receiving (the emulator runs on this machine); an emulator message appears live in the request list, verified and
// forwarded to a local app; selecting it shows the verification steps, forward attempts, the body as
// a JSON tree and raw, and the headers; replay as received and re-signed; copy as curl and the JSON
// fixture; a simulated message; text search; arrow keys; the public URL through the fake tunnel
// command (up, its hooks, a delivery through it, stopped — and where the service still points),
// and a failing command; the local app down. Screenshots at 1280 and 1024 px.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, LABELS, control, hostCall, open, shooter, shooterAcross, useServe, type Suite } from './support/kit';
import { fakeTunnelCommand, NO_NETWORK_ADDRESS } from '../helpers/fake-tunnel';

const AGENT = AGENTS.connected;
const LABEL = LABELS.connected;
const TEAM = 'Demo (emulator)';
const FROM = '15550102000';
const ci = !!process.env.CI && process.env.CI !== 'false';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in for the developer's local app: records each forwarded request, answers 200. */
async function startLocalApp(): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    hits,
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let suite: Suite;

const requests = (page: Page) => page.locator('ul.reqs > li button.req');
const request = (page: Page, text: string) => requests(page).filter({ hasText: text });
const agentRow = (page: Page) => page.locator('table.hook-urls tbody tr').filter({ hasText: LABEL });
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const panelToggle = (page: Page, name: string) =>
  page.getByRole('group', { name: 'Tunnel settings' }).getByRole('button', { name });

/** What tunnel.status counts. */
interface TunnelStatusDTO {
  counts: { received: number; verified: number; duplicates: number; rejected: number };
}

/** How much wider than the window the page is (0 when it fits). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function openPanel(page: Page, name: string) {
  const t = panelToggle(page, name);
  if ((await t.getAttribute('aria-expanded')) !== 'true') await t.click();
}

test.describe('webhook tunnel inspector', () => {
  suite = useServe();

  test('hook URLs, registration after a confirm step, live requests, detail, replay, export, simulate, search, keys, local app down', async ({
    page,
    context,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 900 });
    const shot = shooter(page, testInfo);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const app = await startLocalApp();
    try {
      // 1. The receiver and each agent's full hook URL, named by labels (never team ids).
      await open(page, suite, '#/tunnel');
      await expect(page.getByRole('heading', { name: 'Webhook tunnel' })).toBeVisible();
      const facts = page.locator('.tunnel-facts');
      await expect(facts).toContainText('Listening', { timeout: 10_000 });
      await expect(facts).toContainText('Not exposed');
      const { listenUrl } = await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status');
      const hook = `${listenUrl}/hooks/${AGENT}`;
      const row = agentRow(page);
      await expect(row).toContainText(TEAM);
      await expect(row).not.toContainText(suite.teamId);
      await expect(row.locator('code.url').first()).toHaveText(hook);
      // The demo's agents were registered at this receiver when the demo started (recorded as "demo").
      await expect(row).toContainText(/registered here at \d\d:\d\d \(this receiver\)/);
      await expect(row.getByRole('button', { name: /Register this receiver/ })).toHaveCount(0);
      await expect(row).not.toContainText('no signing secret');
      const history = await hostCall<{ entries: Array<{ url: string; source: string }> }>(
        suite.ready,
        'webhook.history',
        { teamId: suite.teamId, agentId: AGENT },
      );
      expect(history.entries.map((e) => [e.url, e.source])).toEqual([[hook, 'demo']]);

      // Copy the local hook URL: the clipboard holds it.
      await row.getByRole('button', { name: `Copy the local hook URL of ${LABEL} · ${TEAM}` }).click();
      await expect(row.getByRole('button', { name: /Copy the local hook URL/ })).toHaveText('Copied');
      expect(await clipboard(page)).toBe(hook);
      await shot('tunnel-receiver-1280');

      // 3. Forward to the local app (a compact panel).
      await openPanel(page, 'Forwarding');
      await page.getByLabel('Local app URL').fill(app.url);
      await page.getByRole('button', { name: 'Save forward address' }).click();
      await expect(page.getByText(`Deliveries now go to ${app.url}.`)).toBeVisible();
      await expect(facts).toContainText(app.url);
      await page.keyboard.press('Escape');
      await expect(panelToggle(page, 'Forwarding')).toBeFocused();
      await expect(panelToggle(page, 'Forwarding')).toHaveAttribute('aria-expanded', 'false');

      // 4. An inbound message from the emulator appears live, verified, forwarded.
      const inbound = await control<{ messageId: string; deliveryId: string | null }>(
        suite,
        `agents/${AGENT}/inbound`,
        { from: FROM, type: 'text', text: 'hello inspector' },
      );
      expect(inbound.deliveryId).not.toBeNull();
      const live = request(page, 'hello inspector');
      await expect(live).toHaveCount(1, { timeout: 10_000 });
      await expect(live).toContainText('Verified');
      await expect(live).toContainText(LABEL);
      await expect(live).toContainText(`+${FROM}`);
      await expect(live).toContainText('Forwarded 200', { timeout: 10_000 });
      await expect.poll(() => app.hits.length).toBe(1);

      // 5. Select it: verification, forwards, body as a tree and raw, headers.
      await live.click();
      await expect(live).toHaveAttribute('aria-current', 'true');
      const detail = page.getByRole('region', { name: 'Selected request' });
      await expect(detail.getByRole('heading', { name: `Text message from +${FROM}` })).toBeVisible();
      await expect(detail).toContainText(`to ${LABEL} · ${TEAM}`);
      const steps = detail.locator('ol.steps li');
      expect(await steps.count()).toBeGreaterThanOrEqual(2);
      await expect(detail.locator('ol.steps')).toContainText(/signature|v1/i);
      await expect(detail.locator('table.forwards tbody tr')).toHaveCount(1);
      await expect(detail.locator('table.forwards')).toContainText(app.url);
      const tree = detail.getByRole('list', { name: 'Body' });
      await expect(tree).toContainText('"hello inspector"');
      await expect(tree).toContainText(inbound.messageId);
      await expect(detail.locator('table.headers')).toContainText('x-service-signature-v1');
      await shot('tunnel-detail-1280');
      await detail.getByRole('button', { name: 'Raw' }).click();
      await expect(detail.getByLabel('Body', { exact: true })).toHaveText(app.hits[0]!.body);
      await detail.getByRole('button', { name: 'Tree' }).click();
      await expect(detail.getByRole('list', { name: 'Body' })).toBeVisible();

      // 6. Replay as received (same bytes, same signature) and re-signed.
      await detail.getByRole('button', { name: 'Replay as received' }).click();
      await expect(detail.getByRole('status').filter({ hasText: 'Replayed' })).toContainText(
        /Replayed \(as received\): 200/,
      );
      await expect.poll(() => app.hits.length).toBe(2);
      expect(app.hits[1]!.body).toBe(app.hits[0]!.body);
      expect(app.hits[1]!.headers['x-service-signature-v1']).toBe(app.hits[0]!.headers['x-service-signature-v1']);
      await detail.getByRole('button', { name: 'Replay re-signed' }).click();
      await expect(detail.getByRole('status').filter({ hasText: 'Replayed' })).toContainText(
        /Replayed \(re-signed\): 200/,
      );
      await expect.poll(() => app.hits.length).toBe(3);
      await expect(detail.locator('table.forwards tbody tr')).toHaveCount(3);

      // 7. Copy as curl, and the JSON fixture.
      await detail.getByRole('button', { name: 'Copy as curl' }).click();
      await expect(detail.getByRole('status').filter({ hasText: 'curl' })).toHaveText(
        `Copied the curl command. It posts to the forward address, ${app.url}.`,
      );
      const curl = await clipboard(page);
      expect(curl).toMatch(/^curl /);
      expect(curl).toContain(inbound.messageId);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        detail.getByRole('button', { name: 'Download JSON fixture' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/\.json$/);
      expect(readFileSync((await download.path())!, 'utf8')).toContain(inbound.messageId);

      // 8. Simulate a message (panel): it appears, marked simulated.
      await openPanel(page, 'Simulate a message');
      const sim = page.locator('form.simulate');
      await sim.getByLabel('Agent').selectOption({ label: `${LABEL} · ${TEAM}` });
      await sim.getByLabel('From (number)').fill('15550103000');
      await sim.getByLabel('Text', { exact: true }).fill('simulated hi');
      await sim.getByRole('button', { name: 'Simulate' }).click();
      await expect(request(page, 'simulated hi')).toHaveCount(1);
      await expect(request(page, 'simulated hi')).toContainText('Simulated');
      await panelToggle(page, 'Simulate a message').click();
      await shot('tunnel-list-1280');

      // 9. Search: by text, by number; the count says how many are shown.
      const search = page.getByRole('searchbox', { name: 'Search requests' });
      await search.fill('simulated hi');
      await expect(requests(page)).toHaveCount(1);
      await expect(page.locator('.req-count')).toContainText('1 of');
      await search.fill('+1 555 010 3000');
      await expect(requests(page)).toHaveCount(1);
      await expect(requests(page).first()).toContainText('simulated hi');
      await search.fill('no such words anywhere');
      await expect(page.getByText('Nothing matches.')).toBeVisible();
      await search.fill('');
      await expect(requests(page)).toHaveCount(2);

      // 10. Keyboard: the arrow keys move the selection through the list.
      await requests(page).first().focus();
      await page.keyboard.press('ArrowDown');
      await expect(requests(page).nth(1)).toBeFocused();
      await expect(requests(page).nth(1)).toHaveAttribute('aria-current', 'true');
      await expect(detail.getByRole('heading', { name: `Text message from +${FROM}` })).toBeVisible();
      await page.keyboard.press('Home');
      await expect(requests(page).first()).toHaveAttribute('aria-current', 'true');

      // 11. The local app down: forward to a closed port; the failure shows.
      const deadUrl = `http://127.0.0.1:${await closedPort()}/webhook`;
      await openPanel(page, 'Forwarding');
      await page.getByLabel('Local app URL').fill(deadUrl);
      await page.getByRole('button', { name: 'Save forward address' }).click();
      await expect(facts).toContainText(deadUrl);
      await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'while the app is down' });
      const failed = request(page, 'while the app is down');
      await expect(failed).toContainText('Verified', { timeout: 10_000 });
      await expect(failed).toContainText('App did not answer', { timeout: 10_000 });
      await expect(facts).toContainText(/Local app down since/);
      await failed.click();
      await expect(detail.locator('table.forwards')).toContainText('No answer');

      // 12. The same screen at 1024 px.
      await page.setViewportSize({ width: 1024, height: 800 });
      await live.click();
      await expect(detail.getByRole('list', { name: 'Body' })).toBeVisible();
      await shot('tunnel-detail-1024');
    } finally {
      await app.close();
    }
  });

  test('a long agent label wraps: the page is never wider than the window and hook URLs stay readable; a duplicate is counted as one, never as refused', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    const shots = shooterAcross(page, testInfo);
    const LONG = 'SupercalifragilisticexpialidociousSupercalifragilistic';
    const LONG_TEAM = 'Long names';
    const emu = await control<{ id: string; apiKey: string }>(suite, 'teams', { name: LONG_TEAM });
    await control(suite, `teams/${emu.id}/agents`, {
      agentId: 'agent-long',
      label: LONG,
      state: 'connected',
      phone: '15550108888',
    });
    const added = await hostCall<{ teamId: string }>(suite.ready, 'teams.add', {
      label: LONG_TEAM,
      baseUrl: suite.emulator.baseUrl,
      apiKey: emu.apiKey,
      agents: [{ agentId: 'agent-long', label: LONG }],
    });
    // The team goes again at the end, so the tests after this one see the demo team alone.
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open(page, suite, '#/tunnel');
      const facts = page.locator('.tunnel-facts');
      await expect(facts).toContainText('Listening', { timeout: 10_000 });
      const row = page.locator('table.hook-urls tbody tr').filter({ hasText: LONG });
      await expect(row).toHaveCount(1, { timeout: 10_000 });
      const register = row.getByRole('button', { name: `Register this receiver for ${LONG} · ${LONG_TEAM}` });
      const fits = async (what: string) => {
        for (const width of [1280, 1024]) {
          await page.setViewportSize({ width, height: 900 });
          await page.evaluate(() => window.scrollTo(0, 0));
          expect(await overflow(page), `${what}: no sideways scroll at ${width} px`).toBe(0);
          const urls = await page
            .locator('table.hook-urls code.url')
            .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
          expect(
            Math.min(...urls),
            `${what}: every hook URL is at least 10 rem wide at ${width} px`,
          ).toBeGreaterThanOrEqual(160);
          for (const box of ['.tunnel-facts', '.req-list', '.pane-detail']) {
            const spill = await page.locator(box).evaluate((e) => e.scrollWidth - e.clientWidth);
            expect(spill, `${what}: nothing spills out of ${box} at ${width} px`).toBeLessThanOrEqual(0);
          }
        }
      };
      await fits('the hook URLs');
      for (const width of [1280, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        await register.focus();
        const right = await register.evaluate(
          (b) => b.getBoundingClientRect().right - document.documentElement.clientWidth,
        );
        expect(right, `the Register button is inside the window at ${width} px`).toBeLessThanOrEqual(0);
        expect(await page.evaluate(() => window.scrollX), `focusing it scrolls nothing sideways at ${width} px`).toBe(
          0,
        );
      }
      await shots('tunnel-long-label');

      // Registered here after a confirm step that says what stops receiving; then the agent's messages
      // come in, and the same message twice is a duplicate.
      await register.click();
      const ask = row.getByRole('group', { name: `Confirm the new webhook URL of ${LONG} · ${LONG_TEAM}` });
      await expect(ask).toContainText(`Point the webhook of ${LONG} · ${LONG_TEAM} at`);
      await expect(ask).toContainText('another app');
      await expect(ask).toContainText('The service issues a new signing secret');
      await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await shots('tunnel-register-confirm');
      await row.getByRole('button', { name: 'Replace the webhook' }).click();
      await expect(row).toContainText('(this receiver)');
      const before = (await hostCall<TunnelStatusDTO>(suite.ready, 'tunnel.status')).counts;
      for (let i = 0; i < 2; i++)
        await control(suite, 'agents/agent-long/inbound', {
          from: FROM,
          type: 'text',
          text: 'said twice',
          id: 'm-said-twice',
        });
      const twice = request(page, 'said twice');
      await expect(twice).toHaveCount(2, { timeout: 10_000 });
      await expect(twice.filter({ hasText: 'Duplicate' })).toHaveCount(1, { timeout: 10_000 });
      await expect
        .poll(async () => (await hostCall<TunnelStatusDTO>(suite.ready, 'tunnel.status')).counts.duplicates, {
          timeout: 10_000,
        })
        .toBe(before.duplicates + 1);
      const after = (await hostCall<TunnelStatusDTO>(suite.ready, 'tunnel.status')).counts;
      // Both verified, one a duplicate; whatever else came meanwhile (a refused request) is all that was refused.
      expect(after.verified - before.verified).toBe(2);
      expect(after.rejected - before.rejected).toBe(after.received - before.received - 2);
      const d = after.duplicates;
      await expect(facts).toContainText(
        new RegExp(`\\d+ verified · ${d} ${d === 1 ? 'duplicate' : 'duplicates'} · \\d+ refused`),
        { timeout: 10_000 },
      );

      // Its delivery selected: the list and the detail fit too.
      await twice.first().click();
      await expect(page.getByRole('region', { name: 'Selected request' })).toContainText(LONG);
      await fits('with a delivery selected');
      const bad = (await new AxeBuilder({ page }).analyze()).violations.filter(
        (v) => v.impact === 'serious' || v.impact === 'critical',
      );
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      await shots('tunnel-long-label-detail');
    } finally {
      await hostCall(suite.ready, 'teams.remove', { teamId: added.teamId });
    }
  });

  test('public URL through a tunnel command: up, hooks, a delivery through it, stopped; a failing command says why', async ({
    page,
    context,
  }, testInfo) => {
    test.skip(!ci && NO_NETWORK_ADDRESS !== null, NO_NETWORK_ADDRESS ?? '');
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 900 });
    const shot = shooter(page, testInfo);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await open(page, suite, '#/tunnel');
    const facts = page.locator('.tunnel-facts');
    await expect(facts).toContainText('Listening', { timeout: 10_000 });

    // 1. A command that exits at once: failed, with why and what to do.
    await openPanel(page, 'Public URL');
    await page.getByRole('radio', { name: /My own tunnel command/ }).check();
    const cmd = page.getByLabel('Command', { exact: true });
    await cmd.fill('cloudflared tunnel');
    await expect(page.getByText("Put {port} where the receiver's port goes.")).toBeVisible();
    await expect(page.getByRole('button', { name: 'Start' })).toBeDisabled();
    await cmd.fill(`'${process.execPath}' -e "console.error('login needed'); process.exit(6)" {port}`);
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(facts).toContainText('Failed (your tunnel command)', { timeout: 15_000 });
    await expect(facts).toContainText('exited with code 6 before printing a public URL');
    await expect(facts).toContainText('login needed');
    await expect(facts).toContainText('The local receiver keeps working');
    await shot('tunnel-exposure-failed-1280');

    // 2. The fake tunnel program: up, with its URL; the agent registered at it.
    await cmd.fill(fakeTunnelCommand());
    const panel = page.locator('.panel');
    // No agent is chosen by default; choosing one asks before its webhook is replaced.
    await expect(panel.getByRole('checkbox', { name: `${LABEL} · ${TEAM}` })).not.toBeChecked();
    await panel.getByRole('checkbox', { name: `${LABEL} · ${TEAM}` }).check();
    await page.getByRole('button', { name: 'Start' }).click();
    const askAll = panel.getByRole('group', { name: 'Confirm the new webhook URLs' });
    await expect(askAll).toContainText(`${LABEL} · ${TEAM}:`);
    await expect(askAll).toContainText('new signing secret');
    await askAll.getByRole('button', { name: 'Start and replace the webhooks' }).click();
    await expect(facts).toContainText('Up (your tunnel command)', { timeout: 15_000 });
    const publicUrl = (await facts.locator('.exposure code.url').innerText()).trim();
    expect(publicUrl).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:\d+$/);
    const publicHook = `${publicUrl}/hooks/${AGENT}`;
    await expect(panel.getByRole('list', { name: 'Registrations at the public URL' })).toContainText('Registered');
    const row = agentRow(page);
    await expect(row).toContainText(publicHook);
    await expect(row).toContainText("(this receiver's public URL)", { timeout: 10_000 });
    await row.getByRole('button', { name: `Copy the public hook URL of ${LABEL} · ${TEAM}` }).click();
    expect(await clipboard(page)).toBe(publicHook);
    const state = await control<{ agents: Array<{ agentId: string; webhook: { url: string } | null }> }>(
      suite,
      'state',
      undefined,
      'GET',
    );
    expect(state.agents.find((a) => a.agentId === AGENT)?.webhook?.url).toBe(publicHook);

    // An emulator message travels emulator → public URL → receiver, verified.
    await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'through the public URL' });
    const through = request(page, 'through the public URL');
    await expect(through).toContainText('Verified', { timeout: 10_000 });
    await panelToggle(page, 'Public URL').click();
    await shot('tunnel-exposed-1280');

    // 3. Stop: the service still points at the dead URL, and the screen says so.
    await openPanel(page, 'Public URL');
    await page.getByRole('radio', { name: /Nothing/ }).check();
    await page.getByRole('button', { name: 'Stop exposing' }).click();
    await expect(facts).toContainText('Stopped (your tunnel command)', { timeout: 10_000 });
    await expect(facts).toContainText(
      `The service still sends the deliveries of ${LABEL} · ${TEAM} to ${publicUrl}, which no longer answers`,
    );
    await expect(row).toContainText(
      'a public URL of this receiver that no longer reaches it (the receiver is not exposed now): register again',
    );
    await panelToggle(page, 'Public URL').click();
    await shot('tunnel-exposure-stopped-1280');
    await page.setViewportSize({ width: 1024, height: 800 });
    await shot('tunnel-exposure-stopped-1024');
    expect(await overflow(page), 'the long registration words wrap: no sideways scroll at 1024 px').toBe(0);

    // Pointing it back at this receiver: the confirm step names the dead URL that stops receiving.
    await row.getByRole('button', { name: /Register this receiver/ }).click();
    await expect(row.getByRole('group', { name: /Confirm the new webhook URL/ })).toContainText(
      `${publicHook} (registered by this install`,
    );
    await row.getByRole('button', { name: 'Replace the webhook' }).click();
    await expect(row).toContainText('(this receiver)');
    // The history lists both, newest first, with the screen each came from.
    await row.getByRole('button', { name: `Registration history of ${LABEL} · ${TEAM}` }).click();
    const history = page.getByRole('list', { name: `Registrations of ${LABEL} · ${TEAM} by this install` });
    await expect(history.getByRole('listitem').first()).toContainText('(app: Tunnel → Register)');
    await expect(history).toContainText(`${publicHook} (app: Tunnel → Public URL)`);
    await expect(page.getByRole('button', { name: 'Restore previous URL' })).toBeVisible();
    await expect(facts).not.toContainText('The service still sends');
  });
});
