// The desktop app's start over a fake electron module: a config file that does not load is shown in
// a message box; "Set it aside" renames it and the start is tried again and succeeds; "Quit" ends
// with exit 1 and renames nothing; any other failure is shown in an error box and ends with exit 1.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { TeamStore } from '../../../src-main/core/teams';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { launch, type LaunchParts } from '../../../src-main/electron/startup';
import { fakeContract, NOW } from '../contract/fake-contract';
import { fakeElectron } from './fake-electron';

/** The dialog's words, as the person reads them. */
const SET_ASIDE_BUTTON = 'Set it aside and start afresh';
const QUIT_BUTTON = 'Quit';
const CONFIG_FIX_HINT =
  'It was left untouched: fix it by hand, or run `channel-companion config reset` to set it aside (kept as config.json.corrupt-<time>) and start afresh.';

const clock = { now: () => Date.UTC(2025, 0, 2, 3, 4, 5), setTimeout: () => 0, clearTimeout: () => undefined };
const MOVED_NAME = 'config.json.corrupt-2025-01-02T03-04-05-000Z';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-startup-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * The app's start with a contract over the real config file of `dir` (TeamStore.open), and a box
 * answered with `button`; `failWith(attempt)` may fail an attempt (counted from 1) before it opens.
 */
async function start(button: string, opts: { failWith?: (attempt: number) => Error | undefined } = {}) {
  const fake = fakeElectron({ isPackaged: true });
  const exit = vi.fn();
  const dialog = {
    showMessageBox: vi.fn(async (o: { buttons: string[] }) => ({
      response: o.buttons.indexOf(button),
      checkboxChecked: false,
    })),
    showErrorBox: vi.fn(),
  };
  const parts = { ...fake.parts, app: { ...fake.parts.app, exit }, dialog };
  const logs: string[] = [];
  let attempts = 0;
  const contract = fakeContract();
  await launch(parts as unknown as LaunchParts, {
    outDir: '/checkout/out',
    resourcesPath: '/opt/cc/resources',
    configDir: dir,
    clock,
    log: (m) => void logs.push(m),
    createContract: async () => {
      attempts++;
      const failure = opts.failWith?.(attempts);
      if (failure) throw failure;
      await TeamStore.open({ configDir: dir, secrets: new MemorySecretStore(), clientFactory: () => ({}) as never });
      return {
        implementations: contract.impl,
        events: contract.events,
        now: () => NOW,
        setScreenLocked: () => undefined,
        dispose: () => undefined,
      };
    },
  });
  return { dialog, exit, logs, attempts, windows: fake.windows() };
}

describe('desktop start with a config file that does not load', () => {
  it('shows the message in a box; "Set it aside" renames the file, starts again and opens the window', async () => {
    await writeFile(join(dir, 'config.json'), '{"schemaVersion":1, teams: [', 'utf8');
    const r = await start(SET_ASIDE_BUTTON);
    expect(r.dialog.showMessageBox).toHaveBeenCalledTimes(1);
    const box = r.dialog.showMessageBox.mock.calls[0]![0] as unknown as Record<string, unknown>;
    expect(box).toMatchObject({ type: 'error', buttons: [SET_ASIDE_BUTTON, QUIT_BUTTON], cancelId: 1 });
    expect(box['detail']).toMatch(
      new RegExp(
        `^The config file ${join(dir, 'config.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON`,
      ),
    );
    expect(box['detail']).toContain(CONFIG_FIX_HINT);

    expect(r.attempts).toBe(2);
    expect(r.exit).not.toHaveBeenCalled();
    expect(r.dialog.showErrorBox).not.toHaveBeenCalled();
    expect(r.windows).toHaveLength(1);
    expect((await readdir(dir)).sort()).toEqual(['config.json', MOVED_NAME]);
    expect(await readFile(join(dir, MOVED_NAME), 'utf8')).toBe('{"schemaVersion":1, teams: [');
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).teams).toEqual([]);
    expect(r.logs).toEqual([
      `the config file ${join(dir, 'config.json')} did not load; it is set aside, kept as ${join(dir, MOVED_NAME)}`,
    ]);
  });

  it('"Quit": exit 1, the reason logged, nothing renamed, no second box', async () => {
    const bad = JSON.stringify({
      schemaVersion: 1,
      settings: { installId: 'abcdefgh1234', pollIntervalSec: -5 },
      teams: [],
    });
    await writeFile(join(dir, 'config.json'), bad, 'utf8');
    const r = await start(QUIT_BUTTON);
    expect(r.dialog.showMessageBox).toHaveBeenCalledTimes(1);
    expect(r.attempts).toBe(1);
    expect(r.exit).toHaveBeenCalledWith(1);
    expect(r.dialog.showErrorBox).not.toHaveBeenCalled();
    expect(r.windows).toHaveLength(0);
    expect(await readdir(dir)).toEqual(['config.json']);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(bad);
    expect(r.logs).toEqual([
      expect.stringMatching(
        /^Channel Companion failed to start: The config file .* is invalid: settings\.pollIntervalSec: must be at least 5/,
      ),
    ]);
  });

  it('a start that fails again after setting aside: error box and exit 1, tried only once more', async () => {
    await writeFile(join(dir, 'config.json'), 'garbage', 'utf8');
    const r = await start(SET_ASIDE_BUTTON, {
      failWith: (attempt) => (attempt === 2 ? new Error('The OS keychain is locked.') : undefined),
    });
    expect(r.attempts).toBe(2);
    expect(r.dialog.showMessageBox).toHaveBeenCalledTimes(1);
    expect(r.dialog.showErrorBox).toHaveBeenCalledWith(
      'Channel Companion could not start',
      'The OS keychain is locked.',
    );
    expect(r.exit).toHaveBeenCalledWith(1);
    expect(await readdir(dir)).toEqual([MOVED_NAME]);
  });
});

describe('desktop start that fails otherwise', () => {
  it('any other failure: no message box, an error box with the reason, logged, exit 1', async () => {
    const r = await start(SET_ASIDE_BUTTON, { failWith: () => new Error('The OS keychain is not available.') });
    expect(r.dialog.showMessageBox).not.toHaveBeenCalled();
    expect(r.dialog.showErrorBox).toHaveBeenCalledWith(
      'Channel Companion could not start',
      'The OS keychain is not available.',
    );
    expect(r.exit).toHaveBeenCalledWith(1);
    expect(r.attempts).toBe(1);
    expect(r.logs).toEqual(['Channel Companion failed to start: The OS keychain is not available.']);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a readable config starts with no box at all', async () => {
    const r = await start(QUIT_BUTTON);
    expect(r.dialog.showMessageBox).not.toHaveBeenCalled();
    expect(r.dialog.showErrorBox).not.toHaveBeenCalled();
    expect(r.exit).not.toHaveBeenCalled();
    expect(r.windows).toHaveLength(1);
  });
});
