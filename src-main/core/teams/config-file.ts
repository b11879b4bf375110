// Reading and writing <configDir>/config.json. Writes are atomic (temp file + rename) with mode 0600.
// A corrupt or invalid file is never overwritten: loading throws CONFIG_CORRUPT, and nothing writes
// until the file is fixed or moved aside explicitly (moveCorruptConfigAside).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { TeamStoreError } from './errors';
import { CONFIG_FILE_NAME } from './paths';
import { issuesAt, ruleWords } from '../input-words';
import { CONFIG_SCHEMA_VERSION, configFileSchema, type ConfigFile } from './schema';

export function configPath(configDir: string): string {
  return path.join(configDir, CONFIG_FILE_NAME);
}

/** The parsed config, or null when there is no file yet. Throws TeamStoreError CONFIG_CORRUPT. */
export async function readConfig(configDir: string): Promise<ConfigFile | null> {
  const file = configPath(configDir);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new TeamStoreError(
      'CONFIG_CORRUPT',
      `The config file ${file} cannot be read: ${(err as Error).message}. ${CONFIG_FIX_HINT}`,
      { cause: err },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // No cause: the parser's own message quotes the text around the fault, which a hand edit may
    // have filled with a key.
    throw new TeamStoreError(
      'CONFIG_CORRUPT',
      `The config file ${file} is not valid JSON (${jsonFault(text, err)}). ${CONFIG_FIX_HINT}`,
    );
  }
  return checkConfig(raw, `The config file ${file}`, CONFIG_FIX_HINT);
}

/**
 * The config in `raw` (parsed JSON), checked against the schema. Throws TeamStoreError CONFIG_CORRUPT,
 * saying `what` ("The config file …") is invalid or newer than this app, and ending with `hint`.
 */
export function checkConfig(raw: unknown, what: string, hint: string): ConfigFile {
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof version === 'number' && version > CONFIG_SCHEMA_VERSION) {
    throw new TeamStoreError(
      'CONFIG_CORRUPT',
      `${what} has schemaVersion ${version}, written by a newer Channel Companion (this one reads ${CONFIG_SCHEMA_VERSION}): update the app. ${hint}`,
    );
  }
  const parsed = configFileSchema.safeParse(raw, { error: ruleWords });
  if (!parsed.success) {
    throw new TeamStoreError('CONFIG_CORRUPT', `${what} is invalid: ${issuesAt(parsed.error)}. ${hint}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** Ends every CONFIG_CORRUPT message: the app and the CLI share the config folder, so both point to the CLI's command. */
const CONFIG_FIX_HINT =
  'It was left untouched: fix it by hand, or run `channel-companion config reset` to set it aside (kept as config.json.corrupt-<time>) and start afresh.';

/** V8's excerpt of an unexpected token: up to 10 characters either side, "..." where it is cut. */
const EXCERPT = /^Unexpected token .*?, (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/;
const EXCERPT_SIDE = 10;

/** The offset JSON.parse stopped at, from its message; null when the message does not tell. */
function faultOffset(text: string, message: string): number | null {
  const at = /at position (\d+)/.exec(message);
  if (at) return Number(at[1]);
  const m = EXCERPT.exec(message);
  if (!m) return null;
  const [, cutBefore, excerpt, cutAfter] = m;
  if (cutBefore) {
    const i = text.indexOf(excerpt!);
    return i >= 0 && text.indexOf(excerpt!, i + 1) < 0 ? i + EXCERPT_SIDE : null;
  }
  return cutAfter ? excerpt!.length - EXCERPT_SIDE : null;
}

/**
 * Where JSON.parse stopped, by line and column, and never the text there ("at line 3, column 14",
 * "it ends too early"); "an unexpected character" when its message does not tell where.
 */
function jsonFault(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (/end of JSON input/i.test(message)) return 'it ends too early';
  const offset = faultOffset(text, message);
  if (offset === null) return 'an unexpected character';
  const before = text.slice(0, offset);
  return `at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}

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
