// Helpers for the screen specs (agents, pairing, alerts, settings, a11y-a): one `serve` per
// describe block (over the shared harness in ./serve), the emulator's control API, an agent's row,
// and numbered screenshots into the test's output folder.
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { keychainUnavailableReason, makeServeHome, startServe, type RunningServe, type ServeHome, type ServeReady } from './serve';

export const DEMO_KEY = 'demo-key-0123456789abcdef';
export const AGENTS = { connected: 'agent-connected', unlinked: 'agent-unlinked', flaky: 'agent-flaky' } as const;
export const LABELS = { connected: 'Support bot', unlinked: 'New agent', flaky: 'Flaky line' } as const;

const ci = !!process.env.CI && process.env.CI !== 'false';
const noKeychain = keychainUnavailableReason();

export interface Suite {
  readonly serve: RunningServe;
  readonly ready: ServeReady;
  /** The emulator's control base (…/_emulator). */
  readonly controlUrl: string;
  readonly teamId: string;
}

/**
 * Registers beforeAll/afterAll in the calling describe block: a fresh `serve` with its own HOME,
 * config and data. Default: the emulator with its demo team and quick polling.
 */
export function useServe(args: string[] = ['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1']): Suite {
  // Locally without a keychain the app cannot keep keys; in CI that is a failure, not a skip.
  test.skip(!ci && noKeychain !== null, `OS keychain unavailable: ${noKeychain}`);
  let home: ServeHome | undefined;
  let serve: RunningServe | undefined;
  test.beforeAll(async () => {
    if (ci && noKeychain !== null) throw new Error(`OS keychain unavailable in CI: ${noKeychain}`);
    home = makeServeHome();
    serve = await startServe(['--port', '0', ...args], home);
  });
  test.afterAll(async () => {
    const code = await serve?.stop();
    home?.remove();
    expect(code, 'serve stops cleanly on SIGTERM').toBe(0);
  });
  const must = (): RunningServe => {
    if (!serve) throw new Error('serve is not running');
    return serve;
  };
  return {
    get serve() {
      return must();
    },
    get ready() {
      return must().ready;
    },
    get controlUrl() {
      const emu = must().ready.emulator;
      if (!emu) throw new Error('serve runs without the emulator');
      return emu.controlUrl;
    },
    get teamId() {
      return must().ready.demoTeam?.teamId ?? 'demo';
    },
  };
}

/** useServe() with its defaults, the emulator reset after every test (its faults cleared first when asked). */
export function useDemoServe(opts: { clearFaults?: boolean } = {}): Suite {
  const suite = useServe();
  test.afterEach(async () => {
    if (opts.clearFaults) await fetch(`${suite.controlUrl}/faults`, { method: 'DELETE' });
    await resetEmulator(suite);
  });
  return suite;
}

/** POST to the emulator's control surface; returns the parsed JSON reply (throws on non-2xx). */
export async function control(suite: Suite, path: string, body: unknown = {}): Promise<unknown> {
  const res = await fetch(`${suite.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${path} answered ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

/** Back to the seed: agents as they started (used between tests that change them). */
export async function resetEmulator(suite: Suite): Promise<void> {
  await control(suite, '/reset');
}

/** Open the app at a hash route (e.g. '#/alerts'), with the URL's token. */
export async function open(page: Page, suite: Suite, hash = '#/'): Promise<void> {
  await page.goto(suite.ready.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Channel Companion' })).toBeVisible();
  if (hash !== '#/') {
    await page.evaluate((h) => {
      window.location.hash = h;
    }, hash);
  }
}

export function agentHash(suite: Suite, agentId: string, sub = ''): string {
  return `#/agents/${agentId}${sub ? `/${sub}` : ''}?team=${encodeURIComponent(suite.teamId)}`;
}

/** An agent's row in the agents list. */
export function agentRow(page: Page, agentId: string) {
  return page.locator('ul.agents > li').filter({ hasText: labelOf(agentId) });
}

export function labelOf(agentId: string): string {
  const entry = Object.entries(AGENTS).find(([, id]) => id === agentId);
  return entry ? LABELS[entry[0] as keyof typeof LABELS] : agentId;
}

const shots = new WeakMap<TestInfo, number>();

/** Numbered full-page screenshots into this test's output folder (numbered per test). */
export function shooter(page: Page, testInfo: TestInfo): (name: string) => Promise<void> {
  return async (name) => {
    const n = (shots.get(testInfo) ?? 0) + 1;
    shots.set(testInfo, n);
    await page.screenshot({ path: testInfo.outputPath(`${String(n).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
}

/** A <dl class="fields"> value by its term, inside `scope`. */
export function field(scope: ReturnType<Page['locator']>, term: string) {
  return scope.locator(`dt:text-is("${term}") + dd`);
}
