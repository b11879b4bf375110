// Benchmark runner (`npm run bench`): finds test/bench/*.bench.ts, runs each in sequence and prints
// ONE JSON line per benchmark (one per case when run() returns a list): {name, ratio, target, pass, ...figures}. `--only NAME` runs the
// benchmarks whose file name or result name contains NAME. Exit 1 when one misses its target.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

export interface BenchResult extends Record<string, unknown> {
  name: string;
  /** ours ÷ baseline, higher is better. */
  ratio: number;
  /** The ratio the benchmark must reach. */
  target?: number;
}

const resultSchema = z.looseObject({
  name: z.string().min(1),
  ratio: z.number().finite(),
  target: z.number().finite().optional(),
});
const moduleSchema = z.looseObject({
  run: z.custom<() => Promise<unknown>>((v) => typeof v === 'function', 'a bench file must export run()'),
  target: z.number().optional(),
});

function parseArgs(argv: string[]): { only: string | null } {
  let only: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') {
      only = argv[++i] ?? null;
      if (!only) throw new Error('--only needs a benchmark name');
    } else if (a.startsWith('--only=')) only = a.slice('--only='.length);
    else throw new Error(`unknown argument ${a}; usage: run.ts [--only NAME]`);
  }
  return { only };
}

export async function discover(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => join(dir, f));
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const dir = dirname(fileURLToPath(import.meta.url));
  const files = (await discover(dir)).filter((f) => !args.only || basename(f, '.bench.ts').includes(args.only));
  if (files.length === 0) {
    process.stderr.write(`no benchmark matches ${args.only ?? '(any)'}\n`);
    return 2;
  }
  let failed = 0;
  for (const file of files) {
    const fileName = basename(file, '.bench.ts');
    try {
      const mod = moduleSchema.parse(await import(pathToFileURL(file).href));
      // A benchmark of several cases returns one result per case: one line each.
      const out = await mod.run();
      for (const one of Array.isArray(out) ? out : [out]) {
        const res = resultSchema.parse(one) as BenchResult;
        const target = res.target ?? mod.target ?? 1;
        // A benchmark may add checks of its own (e.g. a latency bound): its pass:false stands.
        const pass = res.ratio >= target && (res as { pass?: unknown }).pass !== false;
        if (!pass) failed++;
        const { name, ratio, target: _t, pass: _p, ...figures } = res as BenchResult & { pass?: unknown };
        process.stdout.write(
          `${JSON.stringify({ name, ratio: Math.round(ratio * 1000) / 1000, target, pass, ...figures })}\n`,
        );
      }
    } catch (e) {
      failed++;
      process.stdout.write(
        `${JSON.stringify({ name: fileName, ratio: 0, target: null, pass: false, error: e instanceof Error ? e.message : String(e) })}\n`,
      );
    }
  }
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((code) => (process.exitCode = code));
}
