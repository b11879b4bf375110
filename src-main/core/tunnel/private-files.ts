// The tunnel's data is private to the user wherever its folder is (`--data-dir` included): folders
// 0700, files 0600, whatever the umask. privateTree makes a whole data folder so when it is opened:
// files an older version (or another tool) made with a looser mode are set then, not only the ones
// created from now on.
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
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

/**
 * Makes every folder under `dir` (and `dir` itself) 0700 and every file 0600, where they are not
 * already; symbolic links are left alone (never followed). A missing `dir` is nothing to do; a file
 * that cannot be changed is left as it is (the stores that open it set its mode again).
 */
export async function privateTree(dir: string): Promise<void> {
  let st;
  try {
    st = await lstat(dir);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  if ((st.mode & 0o777) !== PRIVATE_DIR_MODE) await chmod(dir, PRIVATE_DIR_MODE).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) await privateTree(full);
    else if (e.isFile()) {
      const mode = await lstat(full).then(
        (s) => s.mode & 0o777,
        () => PRIVATE_FILE_MODE,
      );
      if (mode !== PRIVATE_FILE_MODE) await chmod(full, PRIVATE_FILE_MODE).catch(() => undefined);
    }
  }
}
