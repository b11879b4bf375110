// Playwright's Electron mode: runs the built app (npx electron-vite build first) where an Electron
// binary exists. On machines without one (our build machines cannot download it) it skips, saying why.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';

const root = process.cwd();
const electronDir = join(root, 'node_modules', 'electron');

/** The binary's path without executing anything: node_modules/electron/path.txt + dist/. */
function electronBinary(): string | null {
  const pathTxt = join(electronDir, 'path.txt');
  if (!existsSync(pathTxt)) return null;
  const bin = join(electronDir, 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

const binary = electronBinary();
const built =
  existsSync(join(root, 'out', 'main', 'index.js')) && existsSync(join(root, 'out', 'preload', 'index.cjs'));

test.describe('Electron app', () => {
  test.skip(
    binary === null,
    'Electron binary not installed (node_modules/electron/path.txt or dist/ missing) — cannot launch Electron here',
  );
  test.skip(!built, 'App not built — run `npx electron-vite build` first');

  test('opens a sandboxed window with the contract bridge and no Node', async () => {
    const app = await electron.launch({
      executablePath: binary!,
      args: [join(root, 'out', 'main', 'index.js')],
      cwd: root,
    });
    try {
      const page = await app.firstWindow();
      await expect(page.getByRole('heading', { name: 'Channel Companion' })).toBeVisible();
      expect(page.url()).toMatch(/^app:\/\/renderer\//);
      const shape = await page.evaluate(() => ({
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
        api: Object.keys((globalThis as unknown as { api: object }).api).length,
      }));
      expect(shape.require).toBe('undefined');
      expect(shape.process).toBe('undefined');
      expect(shape.api).toBeGreaterThan(10);
      const r = await page.evaluate(() =>
        (globalThis as unknown as { api: Record<string, () => Promise<unknown>> }).api['teams.list']!(),
      );
      expect(r).toMatchObject({ ok: true });
      const popups = app.windows().length;
      await page.evaluate(() =>
        (globalThis as unknown as { open(u: string, t: string): unknown }).open('https://example.com', '_blank'),
      );
      expect(app.windows().length).toBe(popups);
    } finally {
      await app.close();
    }
  });
});
