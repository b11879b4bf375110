// The browser host's address kept across restarts: <configDir>/browser-host.json holds the port it
// last listened on and its access token, so a restarted `serve` answers the open tabs at the same
// address with the same token and they recover by themselves. The token grants the app to whoever
// holds it: the file is written atomically with mode 0600 (its folder 0700) and is never logged.
// An unreadable file is set aside in words (a note) and replaced at the next write.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { isHostToken } from './access';

const HOST_STATE_FILE = 'browser-host.json';

export interface HostState {
  port: number;
  token: string;
}

const stateSchema = z.object({
  port: z.number().int().min(1).max(65_535),
  token: z.string().refine(isHostToken),
});

function hostStatePath(configDir: string): string {
  return path.join(configDir, HOST_STATE_FILE);
}

/** The saved state; null (with a note saying so) when the file is unreadable, null alone when there is none. */
export async function readHostState(configDir: string): Promise<{ state: HostState | null; note: string | null }> {
  const file = hostStatePath(configDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: null, note: null };
    return {
      state: null,
      note: `could not read the browser host's saved address ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}): a new access token is made, so open tabs need the new link`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const r = stateSchema.safeParse(parsed);
  if (!r.success)
    return {
      state: null,
      note: `the browser host's saved address ${file} is not valid: a new access token is made and the file replaced, so open tabs need the new link`,
    };
  return { state: r.data, note: null };
}

export async function writeHostState(configDir: string, state: HostState): Promise<void> {
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(
    hostStatePath(configDir),
    `${JSON.stringify({ port: state.port, token: state.token }, null, 2)}\n`,
    { mode: 0o600 },
  );
}
