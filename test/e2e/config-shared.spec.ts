// The app and the command line on one config: with `serve` open in Chromium (no team yet), `team add`
// and then `agent add` run in a terminal on the same config folder show up on the Agents screen at
// once, with no reload, and are polled like any other; a setting changed on the page afterwards keeps
// what the command added.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, open, shooter, useServe } from './support/kit';
import { REPO } from './support/serve';

test.describe('one config for the app and the command line', () => {
  const suite = useServe(['--emulator', '--no-demo-team', '--poll-sec', '2', '--fast-poll-sec', '1']);

  /** channel-companion <args> on serve's config folder, as a terminal beside it would run it. */
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(
      process.execPath,
      [path.join(REPO, 'bin/channel-companion.mjs'), ...args, '--config-dir', suite.home.configDir],
      { cwd: REPO, env: { ...suite.home.env, ...env }, encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.status, `channel-companion ${args.join(' ')}\n${r.stderr}`).toBe(0);
    return r;
  };

  /** An agent's row: a command names agents by their id (the demo's labels are not used). */
  const row = (page: Page, agentId: string) => page.locator('ul.agents > li').filter({ hasText: agentId });

  test('team add and agent add in a terminal appear on the open page at once', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await page.setViewportSize({ width: 1024, height: 700 });
    await open(page, suite);
    await expect(row(page, AGENTS.connected)).toHaveCount(0);

    cli(['team', 'add', '--label', 'Ops', '--base-url', suite.emulator.baseUrl, '--agent', AGENTS.connected], {
      CHANNEL_API_KEY: suite.emulator.apiKey,
    });
    // No reload: the page hears of it from the app, which followed config.json.
    await expect(row(page, AGENTS.connected)).toContainText('Connected', { timeout: 15_000 });
    await shot('team-added');

    cli(['agent', 'add', '--team', 'Ops', '--agent', AGENTS.flaky]);
    await expect(row(page, AGENTS.flaky)).toBeVisible({ timeout: 10_000 });
    await shot('agent-added');

    // A change made on the page now is made on the file as it is: the command's team and agents stay.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => (window.location.hash = '#/settings'));
    const poll = page.getByRole('textbox', { name: 'Poll interval (seconds)' });
    await poll.fill('20');
    await page.getByRole('button', { name: 'Save Poll interval (seconds)' }).click();
    await expect(page.getByText('Saved')).toBeVisible();
    const file = JSON.parse(readFileSync(path.join(suite.home.configDir, 'config.json'), 'utf8')) as {
      settings: { pollIntervalSec: number };
      teams: Array<{ label: string; agents: Array<{ agentId: string }> }>;
    };
    expect(file.settings.pollIntervalSec).toBe(20);
    expect(file.teams.map((t) => [t.label, t.agents.map((a) => a.agentId)])).toEqual([
      ['Ops', [AGENTS.connected, AGENTS.flaky]],
    ]);
    await shot('settings-saved');
  });
});
