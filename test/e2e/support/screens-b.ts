// Helpers for the chat, console and tunnel specs (and their a11y pass): one `serve --emulator` with
// the demo team, the emulator's control surface, the host's own request API (what the renderer
// calls), opening a route with the access token, and numbered screenshots.
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { keychainUnavailableReason, makeServeHome, startServe, type RunningServe, type ServeHome, type ServeReady } from './serve';

export const ci = !!process.env.CI && process.env.CI !== 'false';
export const noKeychain = keychainUnavailableReason();
/** Locally without a keychain the suites skip; in CI that is a failure (see startDemo). */
export const skipReason = !ci && noKeychain !== null ? `OS keychain unavailable: ${noKeychain}` : null;

export interface Demo {
  home: ServeHome;
  serve: RunningServe;
  ready: ServeReady;
  emu: { baseUrl: string; controlUrl: string; apiKey: string };
  teamId: string;
  stop(): Promise<number | null>;
}

/** `serve --emulator` with its demo team (agent-connected, agent-unlinked, agent-flaky). */
export async function startDemo(extra: string[] = []): Promise<Demo> {
  if (ci && noKeychain !== null) throw new Error(`OS keychain unavailable in CI: ${noKeychain}`);
  const home = makeServeHome();
  const serve = await startServe(['--emulator', '--port', '0', '--poll-sec', '1', '--fast-poll-sec', '1', ...extra], home);
  const { ready } = serve;
  if (!ready.emulator || !ready.demoTeam) throw new Error(`serve --emulator gave no emulator / demo team: ${JSON.stringify(ready)}`);
  return {
    home,
    serve,
    ready,
    emu: ready.emulator,
    teamId: ready.demoTeam.teamId,
    async stop() {
      const code = await serve.stop();
      home.remove();
      return code;
    },
  };
}

/**
 * Registers, in the calling describe block, the keychain skip and one demo for the block: started
 * before all tests (handed to `use`), stopped after all, and checked to stop cleanly.
 */
export function useDemo(use: (demo: Demo) => void, extra: string[] = []): void {
  test.skip(skipReason !== null, skipReason ?? '');
  let demo: Demo | undefined;
  test.beforeAll(async () => {
    demo = await startDemo(extra);
    use(demo);
  });
  test.afterAll(async () => {
    const code = await demo?.stop();
    expect(code, 'serve stops cleanly').toBe(0);
  });
}

/** A call to the emulator's control surface; throws on a non-2xx answer. */
export async function control<T = unknown>(demo: Demo, path: string, body?: unknown, method = 'POST'): Promise<T> {
  const res = await fetch(`${demo.emu.controlUrl}/${path.replace(/^\//, '')}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export function hostToken(ready: ServeReady): string {
  return new URL(ready.url).hash.replace(/^#token=/, '');
}

/** One request of the host's API (the same one the renderer makes), e.g. 'settings.update'. */
export async function hostCall<T = unknown>(ready: ServeReady, name: string, args: unknown = {}): Promise<T> {
  const res = await fetch(`${ready.origin}/api/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hostToken(ready)}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as { ok: boolean; value?: T; error?: unknown };
  if (!body.ok) throw new Error(`host ${name} failed: ${JSON.stringify(body.error)}`);
  return body.value as T;
}

/** Opens the app with its token, then goes to a hash route (e.g. '#/tunnel'). */
export async function openRoute(page: Page, ready: ServeReady, hash: string): Promise<void> {
  await page.goto(ready.url);
  await page.waitForFunction(() => !location.hash.includes('token='));
  await page.evaluate((h) => (location.hash = h), hash);
}

export function chatHash(teamId: string, agentId: string): string {
  return `#/agents/${encodeURIComponent(agentId)}/chat?team=${encodeURIComponent(teamId)}`;
}

export function consoleHash(teamId: string, agentId: string): string {
  return `#/console?team=${encodeURIComponent(teamId)}&agent=${encodeURIComponent(agentId)}`;
}

/** Numbered full-page screenshots in the test's output folder. */
export function shooter(page: Page, testInfo: TestInfo): (name: string) => Promise<void> {
  let n = 0;
  return async (name) => {
    n += 1;
    await page.screenshot({ path: testInfo.outputPath(`${String(n).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
}

export type Theme = 'light' | 'dark';

/** Emulates the OS colour scheme and waits until the app's root follows it (when it tracks it). */
export async function useTheme(page: Page, theme: Theme): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(theme === 'dark');
}
