// What the monitor bench's child processes share: their argument (one JSON, checked with zod), one
// JSON line per message on stdout, resource figures over the measured window, and exit when the
// parent goes away (stdin closes) or asks (SIGTERM).
import { z } from 'zod';

export const pollerArgsSchema = z.strictObject({
  baseUrl: z.string().url().refine((u) => /^http:\/\/127\.0\.0\.1:\d+$/.test(u), 'loopback only'),
  apiKey: z.string().min(8),
  teamId: z.string().min(1),
  agentIds: z.array(z.string().min(1)).min(1),
  intervalMs: z.number().int().positive(),
  durationMs: z.number().int().positive(),
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
  if (!parsed.success) fail(`bad argument: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
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

/** Starts measuring: CPU from now, RSS sampled every 250 ms (and the kernel's max RSS). */
export function measureResources(): ResourceWindow {
  const cpu0 = process.cpuUsage();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 250);
  return {
    end() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      const cpu = process.cpuUsage(cpu0);
      const mb = (b: number) => Math.round((b / (1024 * 1024)) * 10) / 10;
      return { cpuSeconds: Math.round(((cpu.user + cpu.system) / 1e6) * 1000) / 1000, peakRssMb: mb(peak), maxRssMb: mb(process.resourceUsage().maxRSS * 1024) };
    },
  };
}
