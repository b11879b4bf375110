// The app's data folder is the config folder's data/, shared with the CLI; an earlier desktop
// version's folder (under Electron's userData) is moved there once, never merged or lost.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appDataDir } from '../../../src-main/app/companion/data-dir';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function folders() {
  const root = await mkdtemp(join(tmpdir(), 'cc-data-dir-'));
  dirs.push(root);
  const config = join(root, 'config');
  const earlier = join(root, 'userData', 'data');
  await mkdir(config, { recursive: true });
  return { config, earlier };
}

function logger() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (m: string) => void lines.push(`info ${m}`),
      warn: (m: string) => void lines.push(`warn ${m}`),
      error() {},
    },
  };
}

describe('appDataDir', () => {
  it('an earlier folder and none here: moved here whole, once', async () => {
    const { config, earlier } = await folders();
    await mkdir(join(earlier, 'tunnel'), { recursive: true });
    await writeFile(join(earlier, 'tunnel', 'seen.jsonl'), 'kept\n');
    const l = logger();
    const dir = await appDataDir(config, earlier, l.log);
    expect(dir).toBe(join(config, 'data'));
    expect(await readFile(join(dir, 'tunnel', 'seen.jsonl'), 'utf8')).toBe('kept\n');
    expect(existsSync(earlier)).toBe(false);
    expect(l.lines).toEqual(['info data: moved to the folder shared with the command line']);
    expect(await appDataDir(config, earlier, l.log)).toBe(dir);
  });

  it('data here already: used, and the earlier folder is left as it is', async () => {
    const { config, earlier } = await folders();
    await mkdir(earlier, { recursive: true });
    await writeFile(join(earlier, 'old'), 'x');
    await mkdir(join(config, 'data'));
    expect(await appDataDir(config, earlier, logger().log)).toBe(join(config, 'data'));
    expect(existsSync(join(earlier, 'old'))).toBe(true);
    expect(existsSync(join(config, 'data', 'old'))).toBe(false);
  });

  it('nothing anywhere, or the same folder (userData is the config folder): the folder here', async () => {
    const { config, earlier } = await folders();
    expect(await appDataDir(config, earlier, logger().log)).toBe(join(config, 'data'));
    expect(await appDataDir(config, join(config, 'data'), logger().log)).toBe(join(config, 'data'));
    expect(await appDataDir(config, null, logger().log)).toBe(join(config, 'data'));
  });

  it('a move that fails: the earlier folder is used where it is, and the log says so', async () => {
    const { config, earlier } = await folders();
    await mkdir(earlier, { recursive: true });
    // The config folder's path is taken by a file: nothing can be made inside it.
    const blocked = join(config, 'blocked');
    await writeFile(blocked, '');
    const l = logger();
    expect(await appDataDir(blocked, earlier, l.log)).toBe(earlier);
    expect(existsSync(earlier)).toBe(true);
    expect(l.lines[0]).toMatch(/^warn data: could not be moved/);
  });
});
