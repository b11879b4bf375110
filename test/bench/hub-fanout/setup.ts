// What the hub-fanout bench starts: `channel-companion` processes (a hub replica, a `listen`), each a process of
// its own running the source as the tests do, their JSON lines read off stdout; signed deliveries as the service
// sends them.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signedPayloads, type Payload } from '../support/deliveries';

const BIN = fileURLToPath(new URL('../../../bin/channel-companion.mjs', import.meta.url));

/** The processes still running: killed when the bench's process exits, however it ends. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

export interface CliProcess {
  child: ChildProcess;
  /** The first JSON line whose `event` is this (rejects if the process exits first or after timeoutMs). */
  ready: Record<string, unknown>;
  /** The process's JSON lines after the ready one, with this event (forwards a listener could not make, …). */
  lines: Record<string, unknown>[];
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs `channel-companion ARGS` until its first JSON line with `event: "ready"`; every later line is kept when `keep` says so. */
export async function startCli(
  args: string[],
  env: Record<string, string>,
  keep: (line: Record<string, unknown>) => boolean = () => false,
  timeoutMs = 120_000,
): Promise<CliProcess> {
  // BENCH_CPU_PROF=<dir>: every process writes a V8 CPU profile there when it exits.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...prof, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CHANNEL_COMPANION_FROM_SOURCE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
  const lines: Record<string, unknown>[] = [];
  let onReady: ((line: Record<string, unknown>) => void) | null = null;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (onReady && line.event === 'ready') {
      onReady(line);
      onReady = null;
    } else if (keep(line)) lines.push(line);
  });
  const exited = once(child, 'exit');
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]}: not ready in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    onReady = (line) => (clearTimeout(timer), resolve(line));
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited (${String(code)}) before it was ready: ${stderr}`));
    });
  });
  return {
    child,
    ready,
    lines,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(force);
    },
  };
}

/** `n` deliveries as the service sends them, `agents` in turn, each signed with its agent's secret. */
export function deliveries(secrets: Map<string, string>, agents: string[], n: number, tag: string): Payload[] {
  return signedPayloads(
    (agent) => secrets.get(agent)!,
    n,
    tag,
    (i) => agents[i % agents.length]!,
  );
}
