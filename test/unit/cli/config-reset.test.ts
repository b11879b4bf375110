// `config reset`, in-process: an unreadable config.json is renamed aside (kept) and the next command
// starts afresh; a config that loads is refused and left byte for byte; no file: nothing to reset.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import type { Clock } from '../../../src-main/core/ports';
import { runCli } from '../../helpers/cli';

const clock: Clock = { now: () => Date.UTC(2025, 0, 2, 3, 4, 5), setTimeout: () => 0, clearTimeout: () => undefined };
const MOVED_NAME = 'config.json.corrupt-2025-01-02T03-04-05-000Z';
const VALID = JSON.stringify({ schemaVersion: 1, settings: { installId: 'abcdefgh1234' }, teams: [] });
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const reset = (extra: string[] = []) =>
  runCli(['config', 'reset', ...extra], { configDir: dir, secretStore: new MemorySecretStore(), clock });

describe('config reset', () => {
  it('an unreadable config: set aside (kept as it was), the path printed; a later team list starts afresh', async () => {
    await writeFile(join(dir, 'config.json'), '{"schemaVersion":1, teams: [', 'utf8');
    const before = await runCli(['team', 'list'], { configDir: dir, secretStore: new MemorySecretStore() });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('run `channel-companion config reset` to set it aside');

    const r = await reset();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const movedTo = join(dir, MOVED_NAME);
    expect(r.stdout).toBe(
      [
        `the unreadable config file is set aside, kept as ${movedTo}`,
        'the next start begins with an empty config: no teams, default settings',
        'the API keys stay in the OS keychain, but the new config does not point to them: add the teams again with `channel-companion team add` (the key from CHANNEL_API_KEY once more) or in the app',
        '',
      ].join('\n'),
    );
    // Beside the data folder (the companion `team list` started made it before the config stopped it).
    expect((await readdir(dir)).filter((n) => n !== 'data')).toEqual([MOVED_NAME]);
    expect(await readFile(movedTo, 'utf8')).toBe('{"schemaVersion":1, teams: [');

    const after = await runCli(['team', 'list', '--json'], { configDir: dir, secretStore: new MemorySecretStore() });
    expect(after.code).toBe(0);
    expect(after.stdout).toBe('');
    expect(after.stderr).toContain('no saved teams');
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).teams).toEqual([]);
  });

  it('a config that fails the schema is set aside too; --json gives the old and the new path', async () => {
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({ schemaVersion: 1, settings: { installId: 'abcdefgh1234', pollIntervalSec: -5 }, teams: [] }),
      'utf8',
    );
    const r = await reset(['--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.json()).toEqual([
      { outcome: 'moved', configFile: join(dir, 'config.json'), movedTo: join(dir, MOVED_NAME) },
    ]);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('a config that loads is refused (exit 2) and left untouched, for people and in --json', async () => {
    await writeFile(join(dir, 'config.json'), VALID, 'utf8');
    const h = await reset();
    expect(h.code).toBe(2);
    expect(h.stdout).toBe('');
    expect(h.stderr).toBe(
      `error: the config file ${join(dir, 'config.json')} reads fine, so it was left as it is: config reset only sets aside a config that cannot be read (to drop a team, use \`channel-companion team remove\`)\n`,
    );
    const j = await reset(['--json']);
    expect(j.code).toBe(2);
    expect(j.stdout).toBe('');
    expect(JSON.parse(j.stderr)).toEqual({
      error: { exitCode: 2, code: 'CONFIG_READABLE', kind: 'failure', message: expect.stringContaining('reads fine') },
    });
    expect(await readdir(dir)).toEqual(['config.json']);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(VALID);
  });

  it('no config file: nothing to reset (exit 0), nothing created', async () => {
    const h = await reset();
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(`there is no config file at ${join(dir, 'config.json')}: nothing to reset\n`);
    const j = await reset(['--json']);
    expect(j.code).toBe(0);
    expect(j.json()).toEqual([{ outcome: 'missing', configFile: join(dir, 'config.json') }]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('--config-dir is taken relative to the working directory', async () => {
    await writeFile(join(dir, 'config.json'), 'garbage', 'utf8');
    const r = await runCli(['config', 'reset', '--config-dir', '.', '--json'], {
      cwd: dir,
      secretStore: new MemorySecretStore(),
      clock,
    });
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([
      { outcome: 'moved', configFile: join(dir, 'config.json'), movedTo: join(dir, MOVED_NAME) },
    ]);
  });
});
