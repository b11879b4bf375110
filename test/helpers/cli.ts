// Runs the CLI in-process with buffered stdout/stderr, a controllable interrupt signal and env.
import { TEST_HOME } from './test-home';
import { main, type MainOptions } from '../../src-main/cli/main';
import type { CliIO } from '../../src-main/cli/io';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON object per non-empty line. */
  json(): Array<Record<string, unknown>>;
}

export interface RunCliOptions extends Omit<MainOptions, 'io'> {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Called with every stdout chunk as it is written (to react to a ready line or a QR). */
  onStdout?: (chunk: string, all: string) => void;
  /** What the command reads on stdin (e.g. Readable.from(['token\n'])); none by default. */
  stdin?: CliIO['stdin'];
  /** The terminal's answer to a question (with a stdin whose isTTY is true, as a terminal). */
  ask?: CliIO['ask'];
  /** stderr is a terminal (default: no, as in a pipe). */
  stderrIsTTY?: boolean;
}

function text(chunk: string | Uint8Array): string {
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
}

export function parseJsonLines(s: string): Array<Record<string, unknown>> {
  return s
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function runCli(args: readonly string[], opts: RunCliOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: {
      write: (c) => {
        stdout += text(c);
        opts.onStdout?.(text(c), stdout);
        return true;
      },
    },
    stderr: { write: (c) => ((stderr += text(c)), true) },
    env:
      opts.configDir === undefined &&
      opts.env?.CHANNEL_COMPANION_HOME === undefined &&
      opts.env?.XDG_CONFIG_HOME === undefined
        ? { ...(opts.env ?? {}), CHANNEL_COMPANION_HOME: TEST_HOME }
        : (opts.env ?? {}),
    cwd: opts.cwd ?? process.cwd(),
    stderrIsTTY: opts.stderrIsTTY === true,
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    ...(opts.ask ? { ask: opts.ask } : {}),
  };
  const { env: _env, cwd: _cwd, onStdout: _on, stdin: _in, ask: _ask, stderrIsTTY: _tty, ...deps } = opts;
  const code = await main(['node', 'channel-companion', ...args], {
    ...deps,
    io,
    signal: deps.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr, json: () => parseJsonLines(stdout) };
}

export type JsonLine = Record<string, unknown>;

export interface Reaction {
  /** When the output lines first satisfy this, `act` runs once (a failure is kept in `errors` and ends the run). */
  when?: (lines: JsonLine[]) => boolean;
  act?: () => Promise<unknown>;
  /** The run is interrupted (as by Ctrl-C) once the output lines satisfy this. */
  until: (lines: JsonLine[]) => boolean;
}

/** Runs a long-running command, reacting to its JSON lines, until `until` holds. */
export async function runCliUntil(
  args: readonly string[],
  opts: Omit<RunCliOptions, 'signal' | 'onStdout'>,
  r: Reaction,
): Promise<CliRun & { errors: unknown[] }> {
  const ctl = new AbortController();
  let acted = false;
  const errors: unknown[] = [];
  const run = await runCli(args, {
    ...opts,
    signal: ctl.signal,
    onStdout: (_c, all) => {
      const lines = parseJsonLines(all);
      if (!acted && r.when && r.act && r.when(lines)) {
        acted = true;
        r.act().catch((e: unknown) => {
          errors.push(e);
          ctl.abort();
        });
      }
      if (r.until(lines)) ctl.abort();
    },
  });
  return { ...run, errors };
}
