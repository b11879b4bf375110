// Every helper once, and files small enough to read: the rules are checked on planted text first, then
// on the tree.
//   - one mutex: core/serial.ts; no other promise chain kept in a field (`x = x.then(…)`, `chain.set(k, …)`);
//   - one JSON-lines module and write-file-atomic: no hand-written temporary file renamed over another;
//   - the tunnel's log files at most 350 lines each.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const MAX_LOG_FILE_LINES = 350;

/** A promise chain kept by hand: a field or variable set to itself `.then(…)`, or a tail stored per key. */
function handMadeChains(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const self = /(?:^|[^\w.])((?:this\.)?[\w.]+)\s*=\s*\1\.then\(/.exec(line);
    if (self) found.push(line.trim());
    else if (/\.(?:set)\([^,]+,\s*\w+\.(?:catch|then)\(\s*\(\)\s*=>\s*undefined/.test(line)) found.push(line.trim());
    else if (/=\s*(?:this\.)?\w+\.then\(\s*(\w+)\s*,\s*\1\s*\)/.test(line)) found.push(line.trim());
  }
  return found;
}

/** A temporary file renamed over another by hand (write-file-atomic does that, once). */
function handMadeAtomicWrites(text: string): string[] {
  return /\.tmp[`'"]/.test(text) && /\brename(?:Sync)?\(/.test(text) ? ['a .tmp file and rename()'] : [];
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(full));
    else if (/\.tsx?$/.test(e.name)) out.push(full);
  }
  return out;
}

const SOURCES = ['src-main', 'src-shared'].flatMap((d) => sources(path.join(root, d)));
const rel = (f: string) => path.relative(root, f);
/** The one mutex itself. */
const SERIAL = 'src-main/core/serial.ts';

/**
 * Hand-made chains in files being rewritten, by file. An entry that no longer matches anything fails
 * the test, so the list only shrinks.
 */
const CHAINS_NOT_YET_REWRITTEN = ['src-main/emulator/world-file.ts'];

describe('the rules, on planted text', () => {
  it.each([
    'this.chain = this.chain.then(async () => {',
    '    queue = queue.then(() => run());',
    '    const run = this.queue.then(step, step);',
    '    this.chains.set(file, next.catch(() => undefined));',
  ])('finds a hand-made promise chain in `%s`', (line) => {
    expect(handMadeChains(line)).toHaveLength(1);
  });

  it.each([
    'return this.inTurn(async () => this.take());',
    'const next = await fetchIt().then((r) => r.json());',
    'this.dirReady ??= mkdir(dir).then(() => undefined);',
  ])('lets `%s` through', (line) => {
    expect(handMadeChains(line)).toEqual([]);
  });

  it('finds a temporary file renamed by hand', () => {
    expect(
      handMadeAtomicWrites('const tmp = `${file}.tmp`;\nawait writeFile(tmp, s);\nawait rename(tmp, file);'),
    ).toHaveLength(1);
    expect(handMadeAtomicWrites('await rename(file, `${file}.corrupt`);')).toEqual([]);
  });
});

describe('the tree', () => {
  it('keeps no promise chain by hand outside core/serial.ts', () => {
    const found = SOURCES.filter((f) => rel(f) !== SERIAL).flatMap((f) =>
      handMadeChains(readFileSync(f, 'utf8')).map((l) => ({ file: rel(f), line: l })),
    );
    expect(found.filter((x) => !CHAINS_NOT_YET_REWRITTEN.includes(x.file))).toEqual([]);
    for (const file of CHAINS_NOT_YET_REWRITTEN.filter((f) => existsSync(path.join(root, f))))
      expect(
        found.map((x) => x.file),
        `${file} is rewritten: drop it from the list`,
      ).toContain(file);
  });

  it('renames no hand-written temporary file over another', () => {
    const found = SOURCES.flatMap((f) => handMadeAtomicWrites(readFileSync(f, 'utf8')).map((w) => `${rel(f)}: ${w}`));
    expect(found).toEqual([]);
  });

  it(`keeps every file of the tunnel's log at most ${MAX_LOG_FILE_LINES} lines`, () => {
    const dir = path.join(root, 'src-main/core/tunnel');
    const logFiles = readdirSync(dir).filter((n) => /^log(-[\w-]+)?\.ts$/.test(n));
    expect(logFiles.length).toBeGreaterThan(3);
    const long = logFiles
      .map((n) => [n, readFileSync(path.join(dir, n), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > MAX_LOG_FILE_LINES);
    expect(long).toEqual([]);
  });
});
