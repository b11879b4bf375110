// The browser specs' kit: one `serve` per describe block (over the harness in ./serve) with the
// emulator and its demo team, the emulator's control API, the host's own request API (what the
// renderer calls), opening a route with the access token, the demo agents, numbered screenshots and axe.
import AxeBuilder from '@axe-core/playwright';
import { randomBytes } from 'node:crypto';
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import {
  emulatorControl,
  keychainUnavailableReason,
  makeServeHome,
  startServe,
  type EmulatorReady,
  type RunningServe,
  type ServeHome,
  type ServeReady,
} from './serve';

export { hostCall } from './serve';

export const DEMO_KEY = 'demo-key-0123456789abcdef';
export const AGENTS = { connected: 'agent-connected', unlinked: 'agent-unlinked', flaky: 'agent-flaky' } as const;
export const LABELS = { connected: 'Support bot', unlinked: 'New agent', flaky: 'Flaky line' } as const;

const ci = !!process.env.CI && process.env.CI !== 'false';
const noKeychain = keychainUnavailableReason();

/** The emulator with its demo team, health polled every 2 s (every 1 s while something is wrong). */
const DEMO_ARGS = ['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'];

export interface Suite {
  readonly serve: RunningServe;
  readonly ready: ServeReady;
  /** The emulator `serve` started (its service address, control base …/_emulator, API key). */
  readonly emulator: EmulatorReady;
  /** The demo team's id. */
  readonly teamId: string;
  /** serve's HOME, config and data folders (a command run beside it uses the same ones). */
  readonly home: ServeHome;
  /** Kills serve at once (SIGKILL, as a crash would). Needs useServe(…, { restartable: true }). */
  kill(): Promise<void>;
  /**
   * Starts serve again on the same port with the same config and data folders, and the same access
   * token unless `newToken` (then the page's link is no longer valid). Needs `restartable`. With
   * `restartable: 'by-itself'` serve is started again with no --port and no token: it reuses the
   * port and token it keeps in its config folder (and `newToken` passes --new-token).
   */
  restart(opts?: { newToken?: boolean }): Promise<void>;
}

/** The environment variable that hands a restartable serve its token (serve --token-env). */
const TOKEN_ENV = 'CC_E2E_HOST_TOKEN';

/**
 * Registers, in the calling describe block, a fresh `serve` with its own HOME, config and data:
 * started before all tests, stopped after all and checked to stop cleanly. Locally without a
 * keychain the block skips (the app cannot keep keys); in CI that is a failure.
 */
export function useServe(args: string[] = DEMO_ARGS, opts: { restartable?: boolean | 'by-itself' } = {}): Suite {
  test.skip(!ci && noKeychain !== null, `OS keychain unavailable: ${noKeychain}`);
  let home: ServeHome | undefined;
  let serve: RunningServe | undefined;
  const byItself = opts.restartable === 'by-itself';
  const tokenArgs = opts.restartable && !byItself ? ['--token-env', TOKEN_ENV] : [];
  const newToken = (h: ServeHome): void => {
    if (opts.restartable && !byItself) h.env[TOKEN_ENV] = randomBytes(32).toString('base64url');
  };
  test.beforeAll(async () => {
    if (ci && noKeychain !== null) throw new Error(`OS keychain unavailable in CI: ${noKeychain}`);
    home = makeServeHome();
    newToken(home);
    serve = await startServe(['--port', '0', ...args, ...tokenArgs], home);
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
    get emulator() {
      const emu = must().ready.emulator;
      if (!emu) throw new Error('serve runs without the emulator');
      return emu;
    },
    get teamId() {
      return must().ready.demoTeam?.teamId ?? 'demo';
    },
    get home() {
      if (!home) throw new Error('serve is not running');
      return home;
    },
    async kill() {
      if (!opts.restartable) throw new Error('kill() needs useServe(…, { restartable: true })');
      await must().kill();
    },
    async restart(r = {}) {
      if (!opts.restartable || !home) throw new Error('restart() needs useServe(…, { restartable: true })');
      if (byItself) {
        serve = await startServe([...args, ...(r.newToken ? ['--new-token'] : [])], home);
        return;
      }
      const port = must().ready.port;
      if (r.newToken) newToken(home);
      serve = await startServe(['--port', String(port), ...args, ...tokenArgs], home);
    },
  };
}

/** useServe() with the demo team, the emulator back to its seed after every test (its faults cleared first when asked). */
export function useDemoServe(opts: { clearFaults?: boolean } = {}): Suite {
  const suite = useServe();
  test.afterEach(async () => {
    if (opts.clearFaults) await control(suite, '/faults', undefined, 'DELETE');
    await resetEmulator(suite);
  });
  return suite;
}

/** A call to the suite's emulator's control surface (e.g. 'agents/x/drop'), see emulatorControl. */
export function control<T = unknown>(suite: Suite, path: string, body?: unknown, method?: string): Promise<T> {
  return emulatorControl<T>(suite.emulator, path, body, method);
}

/** Back to the seed: agents as they started (used between tests that change them). */
async function resetEmulator(suite: Suite): Promise<void> {
  await control(suite, '/reset');
}

/** Opens the app with its token (which the page then takes out of the address), then goes to a hash route. */
export async function open(page: Page, suite: Suite, hash = '#/'): Promise<void> {
  await page.goto(suite.ready.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Channel Companion' })).toBeVisible();
  await page.waitForFunction(() => !location.hash.includes('token='));
  if (hash !== '#/') {
    await page.evaluate((h) => {
      window.location.hash = h;
    }, hash);
  }
}

/** An agent's page of the demo team, or one of its sub-pages ('pairing', 'chat', 'settings'). */
export function agentHash(suite: Suite, agentId: string, sub = ''): string {
  return `#/agents/${encodeURIComponent(agentId)}${sub ? `/${sub}` : ''}?team=${encodeURIComponent(suite.teamId)}`;
}

/**
 * Opens the agent's chat as a customer of its own (a fresh user id), so the test starts from an empty
 * conversation: transcripts persist per user id, the install id by default.
 */
export async function openChatAsNewCustomer(page: Page, suite: Suite, agentId: string): Promise<void> {
  await open(page, suite, agentHash(suite, agentId, 'chat'));
  await page.getByText('Chat as a customer').click();
  await page
    .getByLabel('Customer user id')
    .fill(`e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  await page.getByRole('button', { name: 'Use this id' }).click();
  await expect(page.getByText('No messages yet. Say hello.')).toBeVisible();
}

export function consoleHash(suite: Suite, agentId: string): string {
  return `#/console?team=${encodeURIComponent(suite.teamId)}&agent=${encodeURIComponent(agentId)}`;
}

/** An agent's row in the agents list. */
export function agentRow(page: Page, agentId: string): Locator {
  return page.locator('ul.agents > li').filter({ hasText: labelOf(agentId) });
}

function labelOf(agentId: string): string {
  const entry = Object.entries(AGENTS).find(([, id]) => id === agentId);
  return entry ? LABELS[entry[0] as keyof typeof LABELS] : agentId;
}

/** A <dl class="fields"> value by its term, inside `scope`. */
export function field(scope: Locator, term: string): Locator {
  return scope.locator(`dt:text-is("${term}") + dd`);
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

/** The widths and colour schemes every screen is checked at. */
export const LOOKS = [
  { width: 1280, scheme: 'light' },
  { width: 1280, scheme: 'dark' },
  { width: 1024, scheme: 'light' },
  { width: 1024, scheme: 'dark' },
] as const;

/**
 * Numbered full-page screenshots of the same state in each of LOOKS (`<name>-1280-light.png`, …),
 * through the system colour scheme, each from the top of the page; the page is left at 1280 px, light.
 */
export function shooterAcross(page: Page, testInfo: TestInfo): (name: string) => Promise<void> {
  const shot = shooter(page, testInfo);
  return async (name) => {
    const height = page.viewportSize()?.height ?? 720;
    for (const look of LOOKS) {
      await page.setViewportSize({ width: look.width, height });
      await page.emulateMedia({ colorScheme: look.scheme });
      // From the top: a full-page shot of a scrolled page draws the sticky sidebar where the scroll left it.
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(`${name}-${look.width}-${look.scheme}`);
    }
    await page.setViewportSize({ width: 1280, height });
    await page.emulateMedia({ colorScheme: 'light' });
  };
}

/** The state shot at 1280×800 and 1024×700 (numbered); the page is left at 1280×800. */
export function shooterSizes(page: Page, testInfo: TestInfo): (name: string) => Promise<void> {
  const shot = shooter(page, testInfo);
  return async (name) => {
    for (const [w, h] of [
      [1280, 800],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await shot(`${name}-${w}x${h}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };
}

/** The page's serious and critical axe violations as it is now. */
async function seriousViolations(page: Page) {
  return (await new AxeBuilder({ page }).analyze()).violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}

/** No serious or critical axe violation, light and dark (the test stops at the first scheme with one); left light. */
export async function noSeriousAxe(page: Page): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const bad = await seriousViolations(page);
    expect(bad.map((v) => `${v.id} (${scheme}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * The state shot at 1024×700 and 1280×800 (`<name>-<w>x<h>.png`, full page, from the top), and axe (serious or
 * critical, a soft check) in light and dark; the page is left at 1280×800, light.
 */
export async function shotsAndAxe(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  for (const [width, height] of [
    [1024, 700],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: testInfo.outputPath(`${name}-${width}x${height}.png`), fullPage: true });
  }
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const bad = await seriousViolations(page);
    const said = bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect.soft(said, `axe violations on ${name} (${scheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}
