// Where the app keeps its data: <config folder>/data, the same folder the CLI and `serve` use by
// default, so `messages`, `deliveries`, `webhook history` and a `webhook set` beside the running app
// see what the app sees. Desktop versions before this kept it in Electron's userData folder; that
// folder is moved here once, at the first start that finds it and no data here yet.
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../core/ports';

const exists = (p: string) =>
  stat(p).then(
    () => true,
    (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? false : Promise.reject(e)),
  );

/**
 * The data folder for this config folder, after moving an earlier one (`earlier`) into it when only
 * that one exists. A move that fails leaves both as they were and the earlier one is used, said in
 * the log, so nothing is lost or split.
 */
export async function appDataDir(configDir: string, earlier: string | null, logger: Logger): Promise<string> {
  const dir = join(configDir, 'data');
  if (earlier === null || earlier === dir || !(await exists(earlier)) || (await exists(dir))) return dir;
  try {
    await rename(earlier, dir);
    logger.info('data: moved to the folder shared with the command line', { from: earlier, to: dir });
    return dir;
  } catch (e) {
    logger.warn('data: could not be moved to the folder shared with the command line; using it where it is', {
      from: earlier,
      to: dir,
      error: (e as NodeJS.ErrnoException).code ?? String(e),
    });
    return earlier;
  }
}
