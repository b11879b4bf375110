// The tunnel's data is private to the user wherever its folder is (`--data-dir` included): folders
// 0700, files 0600, whatever the umask.
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the folder (and missing parents, 0700) and makes the folder itself 0700. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

/** Makes every file directly in `dir` 0600 (files written by an older version may be 0644). */
export async function privateFiles(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) await chmod(join(dir, e.name), PRIVATE_FILE_MODE).catch(() => undefined);
  }
}
