// In Chromium against `channel-companion serve --emulator`: add a team through
// the UI with the emulator's address, key and three agent ids; see the three agents' health; drop
// one link via the emulator's control API and see it turn reconnecting and back, with an in-app
// alert; and the API key never reaches the renderer (host responses, event stream, DOM, storage,
// the built renderer files). Screenshots of each step land in this test's output folder.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { control, useServe } from './support/kit';
import { REPO } from './support/serve';

const AGENTS = ['agent-connected', 'agent-unlinked', 'agent-flaky'];
const FAST_POLL_SEC = 1;
const DROP_SEC = 3;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** An agent's row in the agents list (not a notice that names it). */
function row(page: Page, agentId: string) {
  return page
    .getByRole('list', { name: /agents, worst health first/ })
    .getByRole('listitem')
    .filter({ hasText: agentId })
    .first();
}

test.describe('the app shell in a browser, over the emulator', () => {
  const suite = useServe([
    '--emulator',
    '--no-demo-team',
    '--poll-sec',
    String(FAST_POLL_SEC),
    '--fast-poll-sec',
    String(FAST_POLL_SEC),
  ]);

  test('add a team, watch three agents, a dropped link reconnects with an alert, and the key never reaches the renderer', async ({
    page,
  }, testInfo) => {
    const { ready, emulator: emu } = suite;
    const apiKey = emu.apiKey;
    expect(apiKey.length).toBeGreaterThan(8);
    const shot = (name: string) => page.screenshot({ path: testInfo.outputPath(name), fullPage: true });

    // Every host response body (the event stream is read separately below).
    const bodies: Promise<string>[] = [];
    page.on('response', (r) => {
      if (!r.url().startsWith(ready.origin)) return;
      if ((r.headers()['content-type'] ?? '').includes('text/event-stream')) return;
      bodies.push(r.text().catch(() => ''));
    });
    // The same event stream the renderer reads, with the same token.
    const token = new URL(ready.url).hash.replace(/^#token=/, '');
    const sse = new AbortController();
    let streamed = '';
    const stream = fetch(`${ready.origin}/api/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: sse.signal,
    })
      .then(async (res) => {
        const reader = res.body!.getReader();
        const dec = new TextDecoder();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          streamed += dec.decode(value, { stream: true });
        }
      })
      .catch(() => undefined);

    // 1. Onboarding
    await page.goto(ready.url);
    await expect(page.getByLabel('Team name')).toBeVisible();
    await shot('01-onboarding.png');

    // 2. Add the team through the UI
    await page.getByLabel('Team name').fill('E2E team');
    await page.getByLabel('Service address').fill(emu.baseUrl);
    await page.getByLabel('Team API key').fill(apiKey);
    await page.getByLabel(/^Agent IDs/).fill(AGENTS.join(', '));
    await shot('02-team-form.png');
    await page.getByRole('button', { name: /^Add team$/ }).click();

    // 3. Three agents with their health
    for (const id of AGENTS) await expect(row(page, id)).toBeVisible({ timeout: 15_000 });
    await expect(row(page, 'agent-connected')).toContainText('Connected', { timeout: 10_000 });
    await expect(row(page, 'agent-unlinked')).toContainText(/QR scan/i, { timeout: 10_000 });
    await expect(row(page, 'agent-flaky')).not.toContainText(/Not checked yet/i, { timeout: 10_000 });
    await shot('03-three-agents.png');

    // 4. Drop one link: reconnecting within one fast-poll interval (plus delivery to the page), then back.
    const alertText = /agent-connected[^\n]*(is reconnecting|back to connected)/i;
    let sawAlert = false;
    const watchAlert = (async () => {
      const end = Date.now() + (DROP_SEC + 10) * 1000;
      while (!sawAlert && Date.now() < end) {
        sawAlert = alertText.test(
          await page
            .locator('body')
            .innerText()
            .catch(() => ''),
        );
        if (!sawAlert) await page.waitForTimeout(150);
      }
    })();
    await control(suite, 'agents/agent-connected/drop', { seconds: DROP_SEC });
    await expect(row(page, 'agent-connected')).toContainText(/Reconnecting/, { timeout: FAST_POLL_SEC * 1000 + 2000 });
    await shot('04-reconnecting.png');
    await expect(row(page, 'agent-connected')).toContainText('Connected', {
      timeout: (DROP_SEC + FAST_POLL_SEC) * 1000 + 3000,
    });
    await expect(row(page, 'agent-connected')).not.toContainText(/Reconnecting/);
    await watchAlert;
    await shot('05-back-connected.png');
    expect(sawAlert, 'an in-app alert named the dropped agent').toBe(true);

    // 5. The key never reached the renderer.
    sse.abort();
    await stream;
    const responseText = (await Promise.all(bodies)).join('\n');
    expect(bodies.length).toBeGreaterThan(3);
    expect(responseText).toContain('agent-connected');
    expect(responseText, 'no host response carries the API key').not.toContain(apiKey);
    expect(streamed).toContain('health.changed');
    expect(streamed, 'no event carries the API key').not.toContain(apiKey);
    const dom = await page.content();
    const storage = await page.evaluate(() => {
      const g = globalThis as unknown as { localStorage: object; sessionStorage: object };
      return JSON.stringify({ local: { ...g.localStorage }, session: { ...g.sessionStorage } });
    });
    expect(dom, 'the DOM does not hold the API key').not.toContain(apiKey);
    expect(storage, 'web storage does not hold the API key').not.toContain(apiKey);
    const state = await page.evaluate(() =>
      JSON.stringify((window as unknown as { __channelCompanionState: () => unknown }).__channelCompanionState()),
    );
    expect(state, 'the store has the teams').toContain('agent-connected');
    expect(state, 'the whole store does not hold the API key').not.toContain(apiKey);
    expect(responseText, 'the renderer gets the key hint, not the key').toContain(`"keyHint":"…${apiKey.slice(-4)}"`);

    // The built renderer carries no key either.
    for (const f of filesUnder(path.join(REPO, 'out/renderer'))) {
      expect(readFileSync(f, 'latin1').includes(apiKey), `${path.relative(REPO, f)} holds the API key`).toBe(false);
    }
  });
});
