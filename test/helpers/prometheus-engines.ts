// Debian's real Prometheus and Alertmanager for the integration tests: each started on a free
// loopback port with its own temporary config and storage, waited for (/-/ready), and stopped (and
// its folder removed) afterwards. Where a binary is missing: a failure in CI, a skip with the
// install command elsewhere.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { parseJsonLines, runCli } from './cli';
import { DEMO_KEY } from './emulator';

const ci = !!process.env.CI && process.env.CI !== 'false';

/** The first of `names` on PATH (or the absolute path given), or null. */
export function findBinary(...names: string[]): string | null {
  for (const n of names) {
    const r = spawnSync('sh', ['-c', `command -v ${n}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

/**
 * Why the suite cannot run (null: it can). In CI a missing engine throws, so the file fails and
 * never skips.
 */
export function missingEngine(bin: string | null, pkg: string): string | null {
  if (bin) return null;
  const why = `${pkg} is not installed (apt-get install ${pkg})`;
  if (ci) throw new Error(`${why}: in CI the ${pkg} integration test must run`);
  console.warn(`${pkg} integration test skipped: ${why}`);
  return why;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Engine {
  /** http://127.0.0.1:PORT */
  url: string;
  dir: string;
  /** What the engine printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `bin` with `args(dir, port)` after writing `files` (name → text) into a fresh folder, and
 * waits until GET /-/ready answers 200.
 */
export async function startEngine(
  bin: string,
  files: Record<string, string>,
  args: (dir: string, port: number) => string[],
  readyMs = 30_000,
): Promise<Engine> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-engine-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const child: ChildProcess = spawn(bin, args(dir, port), { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const end = Date.now() + readyMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${bin} exited with ${child.exitCode}:\n${out}`);
    }
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`${bin} not ready within ${readyMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, dir, output: () => out, stop };
}

export interface MonitorRun {
  /** The JSON lines printed so far. */
  lines(): Array<Record<string, unknown>>;
  /** Interrupts it (as Ctrl-C) and waits for it to end. */
  stop(): Promise<void>;
}

/**
 * `channel-companion monitor --team "Support desk" --json <args>` in-process, over a team of the
 * emulator's agents saved (with the demo key in an in-memory keychain) in `configDir`.
 */
export async function runMonitor(
  emu: { baseUrl: string },
  configDir: string,
  agentIds: string[],
  args: string[],
): Promise<MonitorRun> {
  const store = new MemorySecretStore();
  const add = await runCli(
    ['team', 'add', '--label', 'Support desk', '--base-url', emu.baseUrl, ...agentIds.flatMap((a) => ['--agent', a])],
    {
      env: { CHANNEL_API_KEY: DEMO_KEY },
      configDir,
      secretStore: store,
    },
  );
  if (add.code !== 0) throw new Error(`team add failed: ${add.stderr}`);
  const ctl = new AbortController();
  let lines: Array<Record<string, unknown>> = [];
  const run = runCli(['monitor', '--team', 'Support desk', '--json', ...args], {
    configDir,
    secretStore: store,
    signal: ctl.signal,
    onStdout: (_c, all) => (lines = parseJsonLines(all)),
  });
  return {
    lines: () => lines,
    stop: async () => {
      ctl.abort();
      await run;
    },
  };
}
