// Reading and writing <configDir>/config.json. Writes are atomic (temp file + rename) with mode 0600.
// A corrupt or invalid file is never overwritten: loading throws CONFIG_CORRUPT, and nothing writes
// until the file is fixed or moved aside explicitly (moveCorruptConfigAside).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { AccountsError } from './errors';
import { CONFIG_FILE_NAME } from './paths';
import { issuesAt, ruleWords } from '../input-words';
import { CONFIG_SCHEMA_VERSION, configFileSchema, type ConfigFile } from './schema';

export function configPath(configDir: string): string {
  return path.join(configDir, CONFIG_FILE_NAME);
}

/** The parsed config, or null when there is no file yet. Throws AccountsError CONFIG_CORRUPT. */
export async function readConfig(configDir: string): Promise<ConfigFile | null> {
  const file = configPath(configDir);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AccountsError('CONFIG_CORRUPT', `The config file ${file} cannot be read: ${(err as Error).message}. ${CONFIG_FIX_HINT}`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AccountsError('CONFIG_CORRUPT', `The config file ${file} is not valid JSON (${(err as Error).message}). ${CONFIG_FIX_HINT}`, { cause: err });
  }
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof version === 'number' && version > CONFIG_SCHEMA_VERSION) {
    throw new AccountsError(
      'CONFIG_CORRUPT',
      `The config file ${file} has schemaVersion ${version}, written by a newer Channel Companion (this one reads ${CONFIG_SCHEMA_VERSION}): update the app. ${CONFIG_FIX_HINT}`,
    );
  }
  const parsed = configFileSchema.safeParse(raw, { error: ruleWords });
  if (!parsed.success) {
    throw new AccountsError('CONFIG_CORRUPT', `The config file ${file} is invalid: ${issuesAt(parsed.error)}. ${CONFIG_FIX_HINT}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** Ends every CONFIG_CORRUPT message: the app and the CLI share the config folder, so both point to the CLI's command. */
export const CONFIG_FIX_HINT = 'It was left untouched: fix it by hand, or run `channel-companion config reset` to set it aside (kept as config.json.corrupt-<time>) and start afresh.';

export async function writeConfig(configDir: string, config: ConfigFile): Promise<void> {
  await fs.mkdir(configDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(configPath(configDir), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** Renames a config file that cannot be loaded to config.json.corrupt-<ts>; returns the new path, or null when there was no file. */
export async function moveCorruptConfigAside(configDir: string, nowMs: number = Date.now()): Promise<string | null> {
  const from = configPath(configDir);
  const stamp = new Date(nowMs).toISOString().replace(/[:.]/g, '-');
  const to = `${from}.corrupt-${stamp}`;
  try {
    await fs.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return to;
}
