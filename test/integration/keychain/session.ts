// Runs a shell script inside a private D-Bus session (dbus-run-session) with a fresh HOME, so the
// keychain tests depend on no outer desktop session. The bus config lists no activatable services:
// a Secret Service exists only when the script starts gnome-keyring-daemon itself, and no unlock
// prompter (gcr-prompter) can pop up.
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const REQUIRED_TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon'];

export function missingTools(): string[] {
  return REQUIRED_TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }).status !== 0);
}

const BUS_CONFIG = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

export interface Home {
  root: string;
  configDir: string;
  dataDir: string;
  busConfig: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh HOME with its own XDG dirs. */
export async function makeHome(root: string): Promise<Home> {
  const dirs = {
    config: path.join(root, 'config'),
    data: path.join(root, 'data'),
    cache: path.join(root, 'cache'),
    runtime: path.join(root, 'runtime'),
  };
  for (const d of Object.values(dirs)) await fs.mkdir(d, { recursive: true, mode: 0o700 });
  const busConfig = path.join(root, 'session-bus.conf');
  await fs.writeFile(busConfig, BUS_CONFIG);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    XDG_RUNTIME_DIR: dirs.runtime,
    LANG: 'C.UTF-8',
  };
  return { root, configDir: path.join(dirs.config, 'channel-companion'), dataDir: dirs.data, busConfig, env };
}

export interface ChildResult {
  op: string;
  ok: boolean;
  value?: unknown;
  name?: string;
  kind?: string;
  code?: string;
  causeName?: string;
  message?: string;
}

export interface SessionRun {
  results: ChildResult[];
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

const REPO = path.resolve(import.meta.dirname, '../../..');
const CHILD = path.join(import.meta.dirname, 'child.ts');

/** The shell command that runs one child operation. */
export function child(op: string, arg = ''): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${q(process.execPath)} --import tsx ${q(CHILD)} ${q(op)} ${q(arg)}`;
}

/** Starts gnome-keyring's secrets component; with a password it creates/unlocks the login keyring. */
export function startKeyring(opts: { unlockWith?: string } = {}): string {
  return opts.unlockWith !== undefined
    ? `printf '%s' '${opts.unlockWith}' | gnome-keyring-daemon --unlock --components=secrets >/dev/null`
    : 'gnome-keyring-daemon --start --components=secrets >/dev/null';
}

/** Locks every collection through the Secret Service API. */
export const LOCK_ALL =
  'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null';

/** Runs `script` (lines joined with ';') in a private session; bounded by timeoutMs, killed as a group. */
export function runSession(
  home: Home,
  lines: string[],
  opts: { extraEnv?: NodeJS.ProcessEnv; timeoutMs?: number; noBus?: boolean } = {},
): Promise<SessionRun> {
  const script = lines.join('\n');
  const [cmd, args] = opts.noBus
    ? ['sh', ['-c', script]]
    : ['dbus-run-session', [`--config-file=${home.busConfig}`, '--', 'sh', '-c', script]];
  return new Promise((resolve, reject) => {
    const p = spawn(cmd as string, args as string[], {
      cwd: REPO,
      env: { ...home.env, ...opts.extraEnv },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-(p.pid as number), 'SIGKILL');
      } catch {
        /* already gone */
      }
      reject(
        new Error(
          `keychain session timed out after ${opts.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 20_000);
    p.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    p.on('close', (exitCode) => {
      clearTimeout(timer);
      const results = stdout
        .split('\n')
        .filter((l) => l.startsWith('@@RESULT '))
        .map((l) => JSON.parse(l.slice('@@RESULT '.length)) as ChildResult);
      resolve({ results, stdout, stderr, exitCode });
    });
  });
}

/** Every regular file under dir (recursively). */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}
