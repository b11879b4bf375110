// The webhook tunnel in Chromium against `serve --emulator`: the receiver's address and
// status; register the receiver's own URL as agent-connected's webhook; an inbound message from the
// emulator appears live, verified, and is forwarded to a local app; its detail shows the raw body,
// headers and verification steps; a simulated message appears; replay as received and re-signed;
// copy as curl and the JSON fixture; with the local app down, the forward failures show.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { control, open, shooter, useServe, type Suite } from './support/kit';

const AGENT = 'agent-connected';
const FROM = '15550102000';

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

const rows = (page: Page) => page.locator('table.delivery-table tbody tr');
const row = (page: Page, text: string) => rows(page).filter({ hasText: text });

test.describe('webhook tunnel', () => {
  suite = useServe();

  test('receive, verify, forward, inspect, replay, export, simulate, and see the local app down', async ({ page, context }, testInfo) => {
    test.setTimeout(90_000);
    const shot = shooter(page, testInfo);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const app = await startLocalApp();
    try {
      // 1. The receiver: listening on loopback, its address shown.
      await open(page, suite, '#/tunnel');
      await expect(page.getByRole('heading', { name: 'Webhook tunnel' })).toBeVisible();
      const facts = page.locator('.tunnel-facts');
      await expect(facts).toContainText('Listening', { timeout: 10_000 });
      const listenUrl = (await facts.locator('dd').nth(1).innerText()).trim();
      expect(listenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await shot('tunnel-receiver');

      // 2. Forward to the local app.
      await page.getByLabel('Local app URL').fill(app.url);
      await page.getByRole('button', { name: 'Save forward address' }).click();
      await expect(page.getByText(`Deliveries now go to ${app.url}.`)).toBeVisible();
      await expect(facts).toContainText(app.url);

      // 3. Register the receiver's own URL as agent-connected's webhook.
      const publicUrl = `${listenUrl}/hooks/${AGENT}`;
      const register = page.locator('form').filter({ has: page.getByRole('heading', { name: 'Register a public webhook URL' }) });
      await register.getByLabel('Agent').selectOption({ label: `${AGENT} (${suite.teamId})` });
      await register.getByLabel('Public URL').fill(publicUrl);
      await register.getByRole('button', { name: 'Register' }).click();
      await expect(register.getByRole('status')).toContainText(`Registered for ${AGENT}: mode`);
      await expect(register.getByRole('status')).toContainText(publicUrl);
      const regRow = page.locator('table.tunnel-agents tbody tr').filter({ hasText: AGENT }).first();
      await expect(regRow).toContainText(publicUrl);
      await expect(regRow).toContainText('Held');
      await shot('tunnel-registered');

      // 4. An inbound message from the emulator appears live, verified, and reaches the local app.
      const inbound = await control<{ messageId: string; deliveryId: string | null }>(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'hello' });
      expect(inbound.deliveryId).not.toBeNull();
      const live = row(page, 'hello');
      await expect(live).toHaveCount(1, { timeout: 10_000 });
      await expect(live).toContainText('Verified');
      await expect(live).toContainText(AGENT);
      await expect(live).toContainText(FROM);
      await expect(live).toContainText('Forwarded — 200', { timeout: 10_000 });
      await expect.poll(() => app.hits.length).toBe(1);
      expect(app.hits[0]!.body).toContain(inbound.messageId);
      await shot('tunnel-delivery-live');

      // 5. Its detail: raw body, headers, verification steps, forward attempts.
      await live.getByRole('button', { name: /Details of delivery/ }).click();
      const detail = page.locator('.delivery-detail');
      await expect(detail.getByRole('heading', { name: /Delivery/ })).toBeVisible();
      await expect(detail.getByLabel('Raw body')).toHaveText(app.hits[0]!.body);
      await expect(detail.locator('table.headers')).toContainText('x-service-signature-v1');
      await expect(detail.locator('table.headers')).toContainText('content-type');
      const steps = detail.locator('ol.steps li');
      expect(await steps.count()).toBeGreaterThanOrEqual(2);
      await expect(detail.locator('ol.steps')).toContainText(/signature|v1/i);
      await expect(detail.locator('table.forwards tbody tr')).toHaveCount(1);
      await expect(detail.locator('table.forwards')).toContainText(app.url);
      await shot('tunnel-detail');

      // 6. Replay as received (same bytes, same headers) and re-signed (a fresh signature).
      await detail.getByRole('button', { name: 'Replay as received' }).click();
      await expect(detail.getByRole('status')).toContainText(/Replayed \(as received\): 200/);
      await expect.poll(() => app.hits.length).toBe(2);
      expect(app.hits[1]!.body).toBe(app.hits[0]!.body);
      expect(app.hits[1]!.headers['x-service-signature-v1']).toBe(app.hits[0]!.headers['x-service-signature-v1']);
      await detail.getByRole('button', { name: 'Replay re-signed' }).click();
      await expect(detail.getByRole('status')).toContainText(/Replayed \(re-signed\): 200/);
      await expect.poll(() => app.hits.length).toBe(3);
      expect(app.hits[2]!.body).toBe(app.hits[0]!.body);
      expect(app.hits[2]!.headers['x-service-signature-v1']).toBeTruthy();
      await expect(detail.locator('table.forwards tbody tr')).toHaveCount(3);
      await shot('tunnel-replayed');

      // 7. Copy as curl (clipboard and on screen), and the JSON fixture download.
      await detail.getByRole('button', { name: 'Copy as curl' }).click();
      await expect(detail.getByRole('status')).toHaveText('Copied the curl command.');
      const curl = await page.evaluate(() => navigator.clipboard.readText());
      expect(curl).toMatch(/^curl /);
      expect(curl).toContain('x-service-signature-v1');
      expect(curl).toContain(inbound.messageId);
      await expect(detail.locator('pre.raw').first()).toHaveText(curl);
      const [download] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Download JSON fixture' }).click()]);
      expect(download.suggestedFilename()).toMatch(/\.json$/);
      const fixture = JSON.parse(readFileSync((await download.path())!, 'utf8')) as unknown;
      expect(JSON.stringify(fixture)).toContain(inbound.messageId);
      expect(JSON.stringify(fixture)).toContain('x-service-signature-v1');
      await shot('tunnel-exported');

      // 8. Simulate an inbound message: it appears, marked simulated, and is forwarded too.
      const sim = page.locator('form').filter({ has: page.getByRole('heading', { name: /Simulate/ }) });
      await sim.getByLabel('Agent').selectOption({ label: `${AGENT} (${suite.teamId})` });
      await sim.getByLabel('From (number)').fill('15550103000');
      await sim.getByLabel('Text', { exact: true }).fill('simulated hi');
      await sim.getByRole('button', { name: 'Simulate' }).click();
      const simRow = row(page, 'simulated hi');
      await expect(simRow).toHaveCount(1);
      await expect(simRow).toContainText('Simulated');
      await expect(simRow).toContainText('15550103000');
      await shot('tunnel-simulated');

      // 9. The local app down: forward to a closed port; the failures show, with since when.
      const deadUrl = `http://127.0.0.1:${await closedPort()}/webhook`;
      await page.getByLabel('Local app URL').fill(deadUrl);
      await page.getByRole('button', { name: 'Save forward address' }).click();
      await expect(facts).toContainText(deadUrl);
      await control(suite, `agents/${AGENT}/inbound`, { from: FROM, type: 'text', text: 'while the app is down' });
      const failed = row(page, 'while the app is down');
      await expect(failed).toContainText('Verified', { timeout: 10_000 });
      await expect(failed).toContainText('Local app did not answer', { timeout: 10_000 });
      await expect(facts).toContainText(/Down since/);
      await expect.poll(async () => Number(/(\d+) failed/.exec(await facts.innerText())?.[1] ?? -1), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      await failed.getByRole('button', { name: /Details of delivery/ }).click();
      await expect(detail.locator('table.forwards')).toContainText(deadUrl);
      await expect(detail.locator('table.forwards')).toContainText('No answer');
      await shot('tunnel-local-app-down');
    } finally {
      await app.close();
    }
  });
});
