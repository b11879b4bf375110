// The renderer's first-load JavaScript: the scripts index.html loads (and preloads) plus every
// module they import statically, transitively. Chunks reached only through import() load later and
// are not counted. Prints raw and gzipped sizes; exits 1 above the gzipped budget.
// Run: node --import tsx scripts/bundle-size.ts [--dir out/renderer] [--budget-kb 130]   (`npm run build` runs it)
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { init, parse } from 'es-module-lexer';

/** Gzipped first-load JS budget, in kB (1 kB = 1000 bytes, as Vite reports sizes). */
export const BUDGET_KB = 130;

export interface LoadedFile {
  /** Path relative to the renderer folder, with forward slashes. */
  file: string;
  raw: number;
  gzip: number;
}

export interface FirstLoad {
  files: LoadedFile[];
  raw: number;
  gzip: number;
}

const SCRIPT_SRC = /<script\b[^>]*\bsrc=["']([^"']+)["'][^>]*>/gi;
const MODULE_PRELOAD = /<link\b(?=[^>]*\brel=["']modulepreload["'])[^>]*\bhref=["']([^"']+)["'][^>]*>/gi;

/** A local URL from the page or a module, as a file inside the renderer folder; null for anything else. */
function localFile(root: string, fromDir: string, url: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url)) return null;
  const path = url.split(/[?#]/)[0]!;
  const file = path.startsWith('/') ? join(root, path) : resolve(fromDir, path);
  return file === root || file.startsWith(root + sep) ? file : null;
}

/** Measures what index.html in `rendererDir` loads before the app can start. */
export async function measureFirstLoad(rendererDir: string): Promise<FirstLoad> {
  const root = resolve(rendererDir);
  const html = await readFile(join(root, 'index.html'), 'utf8');
  const queue = [...html.matchAll(SCRIPT_SRC), ...html.matchAll(MODULE_PRELOAD)]
    .map((m) => localFile(root, root, m[1]!))
    .filter((f): f is string => f !== null);
  await init;
  const seen = new Set<string>();
  const files: LoadedFile[] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(file);
    files.push({
      file: relative(root, file).split(sep).join('/'),
      raw: code.length,
      gzip: gzipSync(code, { level: 9 }).length,
    });
    const [imports] = parse(code.toString('utf8'), file);
    for (const i of imports) {
      if (i.d !== -1 || i.n === undefined) continue; // import() and import.meta load nothing up front
      const dep = localFile(root, dirname(file), i.n);
      if (dep) queue.push(dep);
    }
  }
  return { files, raw: files.reduce((n, f) => n + f.raw, 0), gzip: files.reduce((n, f) => n + f.gzip, 0) };
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

export function report(load: FirstLoad, budgetKb: number): { ok: boolean; text: string } {
  const ok = load.gzip <= budgetKb * 1000;
  const lines = [
    `renderer first-load JS: ${kB(load.raw)} raw, ${kB(load.gzip)} gzipped (budget ${budgetKb} kB gzipped) in ${load.files.length} file(s)${ok ? '' : ` — OVER BUDGET by ${kB(load.gzip - budgetKb * 1000)}`}`,
    ...load.files.map((f) => `  ${f.file}  ${kB(f.raw)} raw, ${kB(f.gzip)} gzipped`),
  ];
  return { ok, text: lines.join('\n') };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: 'out/renderer' },
      'budget-kb': { type: 'string', default: String(BUDGET_KB) },
    },
  });
  const budget = Number(values['budget-kb']);
  if (!Number.isFinite(budget) || budget <= 0) {
    console.error(`bundle-size: --budget-kb must be a positive number, got "${values['budget-kb']}"`);
    return 2;
  }
  if (!existsSync(join(values.dir, 'index.html'))) {
    console.error(`bundle-size: no ${join(values.dir, 'index.html')}: run npm run build`);
    return 1;
  }
  const r = report(await measureFirstLoad(values.dir), budget);
  (r.ok ? console.log : console.error)(r.text);
  return r.ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
