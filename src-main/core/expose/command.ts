// An exposure by any tunnel program the user already has (cloudflared, `tailscale funnel`,
// `ssh -R`, …): the command line, with {port} replaced by the receiver's port, runs in the shell;
// the first public URL it prints on stdout or stderr (see public-url.ts) is the exposure's URL. The
// program is then watched (its end is reported) and stopped with its whole process group. On POSIX
// it runs under a small shell watcher (WATCHER) that stops the group as soon as this process is
// gone, however it went (SIGKILL, a crash): a tunnel program must not keep relaying to a dead port.
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { formatDuration } from '../../../src-shared/duration';
import { withoutSecrets } from './env';
import { ExposeError, LOCAL_KEEPS_WORKING } from './errors';
import { findPublicUrl } from './public-url';
import { DEFAULT_EXPOSE_TIMEOUT_MS, type Exposure } from './types';

const TAIL_LINES = 6;
const LINE_LIMIT = 16 * 1024;
const SHOWN_CHARS = 300;
const STOP_GRACE_MS = 3_000;

export interface CommandExposureOptions {
  /** The command line; every {port} becomes the receiver's port. */
  command: string;
  port: number;
  /** The program's environment (default: this process's), less every variable holding one of `secrets`. */
  env?: NodeJS.ProcessEnv;
  /** Keys and secrets this process knows: no variable holding one reaches the program (see env.ts). */
  secrets?: readonly string[];
  /** How long the program may take to print its URL (default 30 s); then it is stopped. */
  timeoutMs?: number;
  /** Aborting before a URL is printed stops the program; start() then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const PORT_PLACEHOLDER = '{port}';

/** The command as it will run, or an ExposeError when it cannot be run as given. */
function commandLine(command: string, port: number): string {
  const c = command.trim();
  if (c === '')
    throw new ExposeError(
      'bad-command',
      'the exposure command is empty',
      'Give the command that runs your tunnel program, e.g. `cloudflared tunnel --url http://127.0.0.1:{port}`.',
    );
  if (!c.includes(PORT_PLACEHOLDER)) {
    throw new ExposeError(
      'bad-command',
      'the exposure command has no {port}',
      "Put {port} where the receiver's port goes, e.g. `cloudflared tunnel --url http://127.0.0.1:{port}`.",
    );
  }
  return c.split(PORT_PLACEHOLDER).join(String(port));
}

function exitWords(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `was stopped by ${signal}`;
  if (code === 127) return 'exited with code 127 (command not found)';
  return `exited with code ${code ?? '?'}`;
}

function lastWords(tail: string[]): string {
  return tail.length
    ? ` Its last output: ${tail.map((l) => (l.length > SHOWN_CHARS ? `${l.slice(0, SHOWN_CHARS)}…` : l)).join(' | ')}`
    : ' It printed nothing.';
}

/**
 * Runs `$1` (the command line) in the background and waits for it, exiting with its code. Its
 * fd 3 is a pipe whose other end only this process holds: end of file there means this process
 * closed it (stop) or died. Then the watcher sends SIGTERM to the whole group (the program and what
 * it started), and SIGKILL to what is left once the program is gone or after about 3 s.
 */
const WATCHER = [
  'sh -c "$1" 3<&- &',
  'cmd=$!',
  '{',
  "  trap '' TERM INT HUP",
  '  while read -r _; do :; done <&3',
  '  kill -TERM 0',
  '  i=0',
  '  while [ "$i" -lt 30 ] && kill -0 "$cmd" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done',
  '  kill -KILL 0',
  '} &',
  'watch=$!',
  'exec 3<&-',
  'wait "$cmd"',
  'code=$?',
  'kill -KILL "$watch" 2>/dev/null',
  'exit "$code"',
].join('\n');

/** Spawns the command line in its own process group (POSIX: under WATCHER, fd 3 its lifeline). */
function spawnProgram(line: string, env: NodeJS.ProcessEnv): ChildProcess {
  if (process.platform === 'win32')
    return spawn(line, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], env, windowsHide: true });
  return spawn('/bin/sh', ['-c', WATCHER, 'exposure', line], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env,
  });
}

/** Whether any process of the program's group is still running (POSIX; on Windows taskkill took the tree). */
function groupAlive(child: ChildProcess): boolean {
  if (process.platform === 'win32' || child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals the program's whole process group (its shell and what it started); `after`: the shell is gone already. */
function killGroup(child: ChildProcess, sig: NodeJS.Signals, after = false): void {
  if (child.pid === undefined || (!after && (child.exitCode !== null || child.signalCode !== null))) return;
  try {
    if (process.platform === 'win32') {
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => child.kill(),
      );
    } else {
      process.kill(-child.pid, sig);
    }
  } catch {
    if (!after) child.kill(sig);
  }
}

export function startCommandExposure(o: CommandExposureOptions): Promise<Exposure> {
  const line = commandLine(o.command, o.port);
  if (o.signal?.aborted) return Promise.reject(o.signal.reason);
  // Its own process group (POSIX), so stopping it stops what the shell started too.
  const child = spawnProgram(line, withoutSecrets(o.env ?? process.env, o.secrets ?? []));
  // The lifeline's end on this side is never written; closing it (or dying) stops the program.
  const lifeline = child.stdio[3] as (NodeJS.ReadableStream & { destroy(): void }) | null | undefined;
  lifeline?.on('error', () => undefined);
  const tail: string[] = [];
  let url: string | null = null;
  let onUrl: (u: string) => void = () => undefined;

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  const onLine = (raw: string) => {
    const l = raw.trimEnd();
    if (l === '') return;
    tail.push(l);
    if (tail.length > TAIL_LINES) tail.shift();
    if (url === null) {
      const found = findPublicUrl(l);
      if (found) {
        url = found;
        onUrl(found);
      }
    }
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    const decoder = new StringDecoder('utf8');
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      partial += decoder.write(chunk);
      const lines = partial.split(/\r\n|\r|\n/);
      partial = lines.pop() ?? '';
      if (partial.length > LINE_LIMIT) partial = partial.slice(-LINE_LIMIT);
      for (const l of lines) onLine(l);
    });
    stream.on('end', () => {
      onLine(partial + decoder.end());
      partial = '';
    });
  }

  let stopping = false;
  // The shell may exit before what it started: wait for the whole group, then kill what is left.
  const stop = async (): Promise<void> => {
    stopping = true;
    lifeline?.destroy();
    killGroup(child, 'SIGTERM');
    await exited;
    const end = Date.now() + STOP_GRACE_MS;
    while (groupAlive(child) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    if (groupAlive(child)) killGroup(child, 'SIGKILL', true);
  };

  const timeoutMs = o.timeoutMs ?? DEFAULT_EXPOSE_TIMEOUT_MS;
  return new Promise<Exposure>((resolve, reject) => {
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      settle();
      void stop();
      reject(o.signal!.reason);
    };
    const timer = setTimeout(() => {
      settle();
      void stop();
      reject(
        new ExposeError(
          'timeout',
          `the exposure command printed no public URL within ${formatDuration(timeoutMs)}.${lastWords(tail)}`,
          `It must print the public http(s) URL it serves (such as https://name.trycloudflare.com) on stdout or stderr; run it yourself to check. ${LOCAL_KEEPS_WORKING}`,
        ),
      );
    }, timeoutMs);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    onUrl = (u) => {
      if (settled) return;
      settle();
      const lost = exited.then(
        ({ code, signal }) =>
          new ExposeError(
            'exited',
            `the exposure command ${exitWords(code, signal)}: ${u} no longer reaches this receiver.${lastWords(tail)}`,
            `Start the exposure again. ${LOCAL_KEEPS_WORKING}`,
          ),
      );
      // stop() ends the program on purpose: that is not a loss.
      resolve({ url: u, lost: lost.then((e) => (stopping ? new Promise<never>(() => undefined) : e)), stop });
    };
    void exited.then(({ code, signal, error }) => {
      if (settled) return;
      settle();
      if (error)
        return reject(
          new ExposeError(
            'exited',
            `the exposure command could not be started: ${error.message}`,
            `Check the command. ${LOCAL_KEEPS_WORKING}`,
          ),
        );
      reject(
        new ExposeError(
          'exited',
          `the exposure command ${exitWords(code, signal)} before printing a public URL.${lastWords(tail)}`,
          code === 127
            ? `Install the tunnel program or put it on PATH. ${LOCAL_KEEPS_WORKING}`
            : `Run the command yourself to see what it needs. ${LOCAL_KEEPS_WORKING}`,
        ),
      );
    });
  });
}
