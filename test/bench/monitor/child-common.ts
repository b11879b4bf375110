// What the monitor bench's child processes share: their argument (one JSON, checked with zod), one
// JSON line per message on stdout, resource figures over the measured window (the same number of
// polls on both sides), and exit when the parent goes away (stdin closes) or asks (SIGTERM).
import { z } from 'zod';

export const pollerArgsSchema = z.strictObject({
  baseUrl: z
    .string()
    .url()
    .refine((u) => /^http:\/\/127\.0\.0\.1:\d+$/.test(u), 'loopback only'),
  apiKey: z.string().min(8),
  teamId: z.string().min(1),
  agentIds: z.array(z.string().min(1)).min(1),
  intervalMs: z.number().int().positive(),
  durationMs: z.number().int().positive(),
  /** Polls before the measured window opens (the first round). */
  warmupPolls: z.number().int().nonnegative(),
  /** The work both sides are measured over: the window closes this many polls after it opened. */
  polls: z.number().int().positive(),
  maxInFlight: z.number().int().positive(),
});
export type PollerArgs = z.infer<typeof pollerArgsSchema>;

export const emulatorArgsSchema = z.strictObject({
  teamId: z.string().min(1),
  apiKey: z.string().min(8),
  agentIds: z.array(z.string().min(1)).min(1),
});
export type EmulatorArgs = z.infer<typeof emulatorArgsSchema>;

export function parseArg<T>(schema: z.ZodType<T>): T {
  const raw = process.argv[2];
  if (!raw) fail('missing the JSON argument');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    fail('the argument is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    fail(`bad argument: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

export function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Calls onExit when the parent closes our stdin or sends SIGTERM/SIGINT. */
export function exitWithParent(onExit: () => Promise<void>): void {
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    onExit().finally(() => process.exit(0));
  };
  process.stdin.on('end', go).on('close', go).resume();
  process.once('SIGTERM', go);
  process.once('SIGINT', go);
}

export interface ResourceWindow {
  /** Ends the window: CPU seconds (user + system) spent in it, peak RSS in MB. */
  end(): { cpuSeconds: number; peakRssMb: number; maxRssMb: number };
}

/** CPU seconds (user + system) since `since` (a process.cpuUsage() reading), to the ms. */
function cpuSecondsSince(since: NodeJS.CpuUsage): number {
  const cpu = process.cpuUsage(since);
  return Math.round(((cpu.user + cpu.system) / 1e6) * 1000) / 1000;
}

/** Starts measuring: CPU from now, RSS sampled every 250 ms (and the kernel's max RSS). */
export function measureResources(): ResourceWindow {
  const cpu0 = process.cpuUsage();
  // memoryUsage.rss() reads the RSS alone (memoryUsage() walks the heap too, which costs more the
  // larger the heap: it would be charged to the side with more live objects).
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 250);
  return {
    end() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      const mb = (b: number) => Math.round((b / (1024 * 1024)) * 10) / 10;
      return {
        cpuSeconds: cpuSecondsSince(cpu0),
        peakRssMb: mb(peak),
        maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
      };
    },
  };
}

export interface PollFigures {
  polls: number;
  failures: number;
  elapsedSec: number;
  pollsPerSec: number;
  cpuSeconds: number;
  peakRssMb: number;
  maxRssMb: number;
  /** False when the run ended before the window reached its polls. */
  complete: boolean;
  /** CPU seconds of each round of polls from the first on, warm-up rounds included (`round` polls each: one poll of every agent). */
  roundCpuSeconds: number[];
}

/**
 * The measured window of a poller child: it opens at the `warmup`-th poll (the start-up rounds: see
 * WARMUP_ROUNDS in monitor.bench.ts) and closes `target` polls later (or at close() if that comes
 * first). The CPU of every round of `round` polls, warm-up included, is kept beside it. Both sides
 * do the same work in the window, so their CPU compares like for like, and the poll rate is that
 * work over the time it took. (A fixed time window would not: the polls of 1,000
 * agents started together come in rounds, and a window ending just before or just after a round
 * counts a whole round more or less.)
 */
export function pollWindow(
  warmup: number,
  target: number,
  round: number,
): { count(failed: boolean): void; close(): PollFigures } {
  let res: ResourceWindow | null = null;
  let t0 = 0;
  let seen = 0;
  let polls = 0;
  let failures = 0;
  let figures: PollFigures | null = null;
  const rounds: number[] = [];
  let mark = process.cpuUsage();
  const endRound = () => {
    rounds.push(cpuSecondsSince(mark));
    mark = process.cpuUsage();
  };
  const open = () => {
    res = measureResources();
    t0 = performance.now();
  };
  if (warmup === 0) open();
  const close = (): PollFigures => {
    if (figures) return figures;
    if (!res) open();
    const elapsedSec = (performance.now() - t0) / 1000;
    figures = {
      polls,
      failures,
      elapsedSec,
      pollsPerSec: polls / elapsedSec,
      ...res!.end(),
      complete: polls >= target,
      roundCpuSeconds: rounds,
    };
    return figures;
  };
  return {
    count(failed) {
      if (figures) return;
      if (round > 0 && (seen + 1) % round === 0) endRound();
      if (++seen <= warmup) {
        if (seen === warmup) open();
        return;
      }
      polls++;
      if (failed) failures++;
      if (polls >= target) close();
    },
    close,
  };
}
