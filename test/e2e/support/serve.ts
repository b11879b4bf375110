// Starts `channel-companion serve --json` as a child process with its own HOME, config and data
// folders, and reads its ready line. The OS keychain: under `npm test` (scripts/test.mjs) the child
// shares the runner's D-Bus session and its unlocked gnome-keyring; outside one, the child gets its
// own private session with an unlocked gnome-keyring (dbus-run-session). Without those tools the
// caller is told why, so it can skip locally (and fail in CI).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** An emulator's address: its service base, its control base (…/_emulator) and its API key. */
export interface EmulatorReady {
  baseUrl: string;
  controlUrl: string;
  apiKey: string;
}

export interface ServeReady {
  event: 'ready';
  url: string;
  port: number;
  pid: number;
  origin: string;
  emulator: EmulatorReady | null;
  demoTeam: { teamId: string; label: string; agentIds: string[] } | null;
}

export interface RunningServe {
  ready: ServeReady;
  output(): { stdout: string; stderr: string };
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash would: no clean shutdown. Resolves once the process is gone. */
  kill(): Promise<void>;
}

function have(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Why the keychain cannot be provided, or null when it can. */
export function keychainUnavailableReason(): string | null {
  if (process.env.DBUS_SESSION_BUS_ADDRESS) return null;
  const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((c) => !have(c));
  return missing.length === 0
    ? null
    : `no D-Bus session and no ${missing.join(' / ')} to start one (apt-get install dbus gnome-keyring)`;
}

const UNLOCK = 'echo -n e2e-pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$0" "$@"';

function launch(cliArgs: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const node = [process.execPath, ...cliArgs];
  // detached: its own process group, so stop() reaches the CLI (and the private bus) by group id.
  if (process.env.DBUS_SESSION_BUS_ADDRESS)
    return spawn(node[0]!, node.slice(1), { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return spawn('dbus-run-session', ['--', 'sh', '-c', UNLOCK, ...node], {
    cwd: REPO,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function attempt(
  cliArgs: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<RunningServe | { unknownCommand: true }> {
  const child = launch(cliArgs, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const ready = await new Promise<ServeReady | 'exited'>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not get ready in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`)),
      timeoutMs,
    );
    const check = (): void => {
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(line) as ServeReady);
        } catch {
          reject(new Error(`serve's first line is not JSON: ${line}`));
        }
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      resolve('exited');
    });
  });
  if (ready === 'exited') {
    if (/unknown command 'serve'/.test(stderr)) return { unknownCommand: true };
    throw new Error(`serve exited before it was ready\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
  if (ready.event !== 'ready') throw new Error(`unexpected first line: ${JSON.stringify(ready)}`);
  return {
    ready,
    output: () => ({ stdout, stderr }),
    async kill() {
      try {
        process.kill(typeof ready.pid === 'number' ? ready.pid : -child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await exited;
    },
    async stop() {
      if (child.exitCode === null) {
        try {
          // The CLI itself (under a private bus, dbus-run-session then exits with its status).
          if (typeof ready.pid === 'number') process.kill(ready.pid, 'SIGTERM');
          else if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
      }
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        }
      }, 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface ServeHome {
  root: string;
  configDir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  remove(): void;
}

export function makeServeHome(): ServeHome {
  const root = mkdtempSync(path.join(tmpdir(), 'cc-e2e-'));
  const dirs = ['home', 'home/.config', 'home/.local/share', 'home/.cache', 'runtime', 'config', 'data'].map((d) =>
    path.join(root, d),
  );
  for (const d of dirs) mkdirSync(d, { recursive: true, mode: 0o700 });
  const home = path.join(root, 'home');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(root, 'runtime'),
    ...(process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {}),
  };
  return {
    root,
    configDir: path.join(root, 'config'),
    dataDir: path.join(root, 'data'),
    env,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** `node bin/channel-companion.mjs serve --json …` with the home's folders. */
export async function startServe(args: string[], home: ServeHome, timeoutMs = 30_000): Promise<RunningServe> {
  const cli = [
    path.join(REPO, 'bin/channel-companion.mjs'),
    'serve',
    '--json',
    '--config-dir',
    home.configDir,
    '--data-dir',
    home.dataDir,
    // The receiver on any free port: the default one may be another companion's on this machine.
    '--tunnel-port',
    '0',
    ...args,
  ];
  const r = await attempt(cli, home.env, timeoutMs);
  if ('unknownCommand' in r)
    throw new Error(
      'serve is not a command of this CLI build: add it to COMMANDS (src-main/cli/program.ts) and run npx electron-vite build',
    );
  return r;
}

/** `node bin/channel-companion.mjs <args>` (a long-running command with --json) in the home's environment, once its first line came. */
export async function startCommand(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<RunningServe> {
  const r = await attempt([path.join(REPO, 'bin/channel-companion.mjs'), ...args], env, timeoutMs);
  if ('unknownCommand' in r) throw new Error(`${args[0]} is not a command of this CLI build`);
  return r;
}

/** One request of the host's API (the same one the renderer makes), e.g. 'settings.update'. */
export async function hostCall<T = unknown>(ready: ServeReady, name: string, args: unknown = {}): Promise<T> {
  const token = new URL(ready.url).hash.replace(/^#token=/, '');
  const res = await fetch(`${ready.origin}/api/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as { ok: boolean; value?: T; error?: unknown };
  if (!body.ok) throw new Error(`host ${name} failed: ${JSON.stringify(body.error)}`);
  return body.value as T;
}

/** A call to an emulator's control surface (e.g. 'agents/x/drop'); the parsed JSON answer, or a throw on non-2xx. */
export async function emulatorControl<T = unknown>(
  emu: EmulatorReady,
  path: string,
  body: unknown = {},
  method = 'POST',
): Promise<T> {
  const res = await fetch(`${emu.controlUrl}/${path.replace(/^\//, '')}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'GET' || method === 'DELETE' ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${method} ${path} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}
