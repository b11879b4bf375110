// The config folder's watch: a folder that does not exist yet (a first start, a hub) is made and watched, so a
// config.json written there later is seen, with no warning.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigWatch } from '../../../src-main/app/companion/config-watch';
import { systemClock } from '../../../src-main/core/ports';
import { waitFor } from '../../helpers/wait';

describe('ConfigWatch', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('makes a config folder that does not exist yet (0700) and sees a config.json written there', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-config-watch-'));
    const configDir = path.join(dir, 'not', 'made');
    const warnings: string[] = [];
    let changes = 0;
    const w = new ConfigWatch(
      configDir,
      systemClock,
      { info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
      async () => {
        changes++;
      },
    );
    try {
      expect(warnings).toEqual([]);
      expect((await stat(configDir)).mode & 0o777).toBe(0o700);
      await writeFile(path.join(configDir, 'config.json'), '{}');
      await waitFor(() => changes > 0, 5_000, 'the change seen');
    } finally {
      w.close();
    }
  });
});
