// What tests may not do with time. Unit and integration tests assert behaviour (counts, order, a
// manual clock), never wall-clock durations: elapsed-time bounds and ratios belong in `npm run bench`,
// and a fixed sleep longer than SLEEP_LIMIT_MS stands in for a wait on state. e2e tests wait for
// states (expect(...) with a timeout, expect.poll, waitForResponse): a waitForTimeout (or a sleep) is
// allowed only as a short pause of at most E2E_PAUSE_LIMIT_MS, written as a number.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export const SLEEP_LIMIT_MS = 100;
export const E2E_PAUSE_LIMIT_MS = 500;

export interface Finding {
  file: string;
  line: number;
  rule: string;
  text: string;
}

type Rule = { rule: string; find: (line: string) => boolean };

/** A number literal such as 1_500; NaN for anything else (an expression). */
function literalMs(s: string): number {
  const t = s.trim();
  return /^\d[\d_]*$/.test(t) ? Number(t.replace(/_/g, '')) : NaN;
}

/** Every `new Promise((r) => setTimeout(r, N))` and `sleep(N)`-like function call (not a method) on the line: its argument text. */
function sleeps(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(
    /new Promise(?:<\w+>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,\s*([^)]+)\)/g,
  ))
    out.push(m[2]!);
  for (const m of line.matchAll(/(?<![.\w$])(?:sleep|sleepMs|delay|pause)\(\s*([^,()]+)\)/g)) out.push(m[1]!);
  return out;
}

const UNIT_RULES: Rule[] = [
  // A wall-clock reading minus an earlier one: an elapsed time.
  { rule: 'elapsed wall-clock time', find: (l) => /\b(?:Date|performance)\.now\(\)\s*-\s*[A-Za-z_$(]/.test(l) },
  { rule: 'elapsed wall-clock time', find: (l) => /\bprocess\.hrtime\b/.test(l) },
  // A bound that is a multiple of a measured time: a ratio of durations.
  {
    rule: 'time ratio',
    find: (l) =>
      /toBe(?:Less|Greater)Than(?:OrEqual)?\(\s*[\d.]+\s*\*\s*[A-Za-z_$][\w$]*(?:Ms|Time|Elapsed|Duration|Seconds)\b/.test(
        l,
      ),
  },
  {
    rule: `wall-clock sleep over ${SLEEP_LIMIT_MS} ms`,
    find: (l) => sleeps(l).some((a) => literalMs(a) > SLEEP_LIMIT_MS),
  },
];

const E2E_RULES: Rule[] = [
  {
    rule: `waitForTimeout over ${E2E_PAUSE_LIMIT_MS} ms (or not a number)`,
    find: (l) =>
      [...l.matchAll(/\.waitForTimeout\(\s*([^)]*)\)/g)].some((m) => !(literalMs(m[1]!) <= E2E_PAUSE_LIMIT_MS)),
  },
  {
    rule: `sleep over ${E2E_PAUSE_LIMIT_MS} ms (or not a number)`,
    find: (l) => sleeps(l).some((a) => !(literalMs(a) <= E2E_PAUSE_LIMIT_MS)),
  },
];

/** The findings in one file's text; `kind` picks the rules. Lines that are comments only are skipped. */
export function scanText(file: string, text: string, kind: 'unit' | 'e2e'): Finding[] {
  const rules = kind === 'e2e' ? E2E_RULES : UNIT_RULES;
  const out: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) return;
    for (const r of rules) if (r.find(line)) out.push({ file, line: i + 1, rule: r.rule, text: line.trim() });
  });
  return out;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (/\.(?:ts|tsx|mts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Scans every test source under `dirs` (relative to `root`) with the rules of `kind`. */
export async function scanTree(root: string, dirs: string[], kind: 'unit' | 'e2e'): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const d of dirs) {
    for (const f of await filesUnder(join(root, d)))
      out.push(...scanText(relative(root, f), await readFile(f, 'utf8'), kind));
  }
  return out;
}
