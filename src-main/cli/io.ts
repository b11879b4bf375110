// Where the CLI reads and writes: the real process by default, buffers in tests.
import { createInterface } from 'node:readline/promises';

export interface CliIO {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string | Uint8Array): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether stderr is a terminal (progress lines redraw in place only there). */
  stderrIsTTY: boolean;
  /** Where a secret is read from when it is piped in or typed (`secret set`); absent: nothing to read. */
  stdin?: SecretInput;
  /**
   * Asks a question at the terminal and answers the line typed (cli/confirm.ts asks only when
   * stdin is a terminal); absent: nothing can be asked.
   */
  ask?(question: string): Promise<string>;
}

/** The part of process.stdin that reading a secret needs. */
export interface SecretInput {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  setEncoding(enc: 'utf8'): unknown;
  on(event: 'data', fn: (chunk: string) => void): unknown;
  on(event: 'end' | 'error', fn: (arg?: unknown) => void): unknown;
  off(event: 'data', fn: (chunk: string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdin: process.stdin,
    async ask(question) {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  };
}

/**
 * An AbortSignal that fires on SIGINT/SIGTERM, and a function that removes the handlers.
 * A second Ctrl-C while a command is already cancelling falls through to Node's default (exit).
 */
export function processInterrupts(): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (ctl.signal.aborted) {
      dispose();
      process.kill(process.pid, name);
      return;
    }
    ctl.abort(new Error(`received ${name}`));
  };
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader of stdout went away (`listen --json | head -1`): the command stops as if interrupted, with no
  // stack trace. Kept after dispose: a last line written on the way out meets the same closed pipe.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    if (!ctl.signal.aborted) ctl.abort(new Error('stdout was closed'));
  });
  return { signal: ctl.signal, dispose };
}

/** Resolves when the command is interrupted (Ctrl-C, SIGTERM): what a long-running command waits on. */
export function untilAborted(signal: AbortSignal): Promise<null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }));
}
