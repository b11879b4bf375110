// Parent side of the monitor bench: spawns a child script (`node --import tsx <script> <json>`),
// hands out its JSON stdout lines, and makes sure it dies — on kill(), on a timeout, and when the
// bench process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export type Line = Record<string, unknown> & { type?: unknown };

export interface Child {
  readonly proc: ChildProcess;
  /** Called for every JSON line (non-JSON lines are ignored). */
  onLine(fn: (line: Line) => void): void;
  /** The first line with this type (rejects on timeout or early exit). */
  waitFor(type: string, timeoutMs: number): Promise<Line>;
  stderrTail(): string;
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const p of live) p.kill('SIGKILL');
  });
}

export function scriptPath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

export function spawnChild(script: string, arg: unknown): Child {
  hookExit();
  // BENCH_CPU_PROF=<dir>: the poller children write V8 CPU profiles there (one per thread).
  const prof =
    process.env.BENCH_CPU_PROF && script !== 'emulator-child.ts'
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', scriptPath(script), JSON.stringify(arg)], {
    cwd: fileURLToPath(new URL('../../../', import.meta.url)),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(proc);
  let exited = false;
  const exitWaiters: Array<() => void> = [];
  proc.once('exit', () => {
    exited = true;
    live.delete(proc);
    for (const w of exitWaiters.splice(0)) w();
  });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-4000);
  });
  const listeners: Array<(l: Line) => void> = [];
  createInterface({ input: proc.stdout! }).on('line', (text) => {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return;
    }
    for (const fn of [...listeners]) fn(line);
  });
  return {
    proc,
    onLine(fn) {
      listeners.push(fn);
    },
    waitFor(type, timeoutMs) {
      return new Promise((resolve, reject) => {
        const done = (err: Error | null, line?: Line) => {
          clearTimeout(timer);
          const i = listeners.indexOf(check);
          if (i >= 0) listeners.splice(i, 1);
          proc.off('exit', onExit);
          if (err) reject(err);
          else resolve(line!);
        };
        const check = (l: Line) => {
          if (l.type === type) done(null, l);
        };
        const onExit = () => done(new Error(`${script} exited before "${type}"; stderr: ${stderr.trim()}`));
        const timer = setTimeout(
          () => done(new Error(`${script}: no "${type}" within ${timeoutMs} ms; stderr: ${stderr.trim()}`)),
          timeoutMs,
        );
        listeners.push(check);
        if (exited) onExit();
        else proc.once('exit', onExit);
      });
    },
    stderrTail: () => stderr,
    kill() {
      if (exited) return Promise.resolve();
      return new Promise<void>((resolve) => {
        exitWaiters.push(resolve);
        const force = setTimeout(() => proc.kill('SIGKILL'), 3000);
        exitWaiters.push(() => clearTimeout(force));
        proc.stdin!.end();
        proc.kill('SIGTERM');
      });
    },
  };
}
