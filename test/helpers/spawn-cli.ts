// Spawns bin/channel-companion.mjs as a real process and reads its output line by line. It runs the
// TypeScript source (CHANNEL_COMPANION_FROM_SOURCE=1), so the tests need no build and never see a stale one.
import { TEST_HOME } from './test-home';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/channel-companion.mjs', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line (parsed as JSON). */
  firstJsonLine(timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCli(args: readonly string[], env: Record<string, string | undefined> = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CHANNEL_COMPANION_FROM_SOURCE: '1',
      ...(env.XDG_CONFIG_HOME === undefined ? { CHANNEL_COMPANION_HOME: TEST_HOME } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    firstJsonLine(timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no first line within ${timeoutMs} ms; stderr: ${err}`)),
          timeoutMs,
        );
        const check = () => {
          const nl = out.indexOf('\n');
          if (nl === -1) return;
          clearTimeout(timer);
          child.stdout!.off('data', check);
          try {
            resolve(JSON.parse(out.slice(0, nl)) as Record<string, unknown>);
          } catch (e) {
            reject(e as Error);
          }
        };
        child.stdout!.on('data', check);
        check();
        void exited.then(() => {
          clearTimeout(timer);
          if (out.indexOf('\n') === -1) reject(new Error(`exited before a line; stderr: ${err}`));
        });
      });
    },
  };
}

/** Runs the bin to completion. */
export async function runBin(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const s = spawnCli(args, env);
  const { code } = await s.exited;
  return { code, stdout: s.stdout(), stderr: s.stderr() };
}
