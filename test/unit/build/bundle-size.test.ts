// The first-load measure: scripts and modulepreloads of index.html plus their static imports,
// transitively; dynamic imports, stylesheets and remote scripts are not counted.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { measureFirstLoad, report } from '../../../scripts/bundle-size';

const SCRIPT = fileURLToPath(new URL('../../../scripts/bundle-size.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cc-bundle-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  'index.html': [
    '<!doctype html><html><head>',
    '<script type="module" crossorigin src="./assets/index-a.js"></script>',
    '<link rel="modulepreload" crossorigin href="./assets/vendor-b.js">',
    '<link rel="stylesheet" crossorigin href="./assets/index.css">',
    '<script src="https://cdn.example/remote.js"></script>',
    '</head><body></body></html>',
  ].join('\n'),
  'assets/index-a.js':
    'import{a as b}from"./vendor-b.js";import"./shared-c.js";const q=()=>import("./qr-d.js");console.log(b,q,import.meta.url);',
  'assets/vendor-b.js': 'import"./shared-c.js";export const a=1;',
  'assets/shared-c.js': 'export*from"./deep/e.js";',
  'assets/deep/e.js': 'import"../shared-c.js";export const e="x".repeat(10);',
  'assets/qr-d.js': `export const big=${JSON.stringify('q'.repeat(50_000))};`,
  'assets/index.css': 'body{color:red}',
};
for (const [name, text] of Object.entries(FILES)) {
  mkdirSync(join(dir, name, '..'), { recursive: true });
  writeFileSync(join(dir, name), text);
}

const counted = ['assets/index-a.js', 'assets/vendor-b.js', 'assets/shared-c.js', 'assets/deep/e.js'];

describe('renderer first-load size', () => {
  it('counts the entry, its preloads and static imports once each, not import() chunks or CSS', async () => {
    const load = await measureFirstLoad(dir);
    expect(load.files.map((f) => f.file).sort()).toEqual([...counted].sort());
    const raw = counted.reduce((n, f) => n + Buffer.byteLength(FILES[f]!), 0);
    const gzip = counted.reduce((n, f) => n + gzipSync(FILES[f]!, { level: 9 }).length, 0);
    expect(load.raw).toBe(raw);
    expect(load.gzip).toBe(gzip);
  });

  it('passes at or under the budget and fails above it, saying by how much', async () => {
    const load = await measureFirstLoad(dir);
    expect(report(load, load.gzip / 1000).ok).toBe(true);
    const over = report(load, (load.gzip - 100) / 1000);
    expect(over.ok).toBe(false);
    expect(over.text).toMatch(/OVER BUDGET by 0\.1 kB/);
    expect(over.text).toContain('assets/index-a.js');
  });

  it('the script exits 1 above the budget and when nothing is built', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { encoding: 'utf8' });
    const over = run('--dir', dir, '--budget-kb', '0.01');
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/OVER BUDGET/);
    const under = run('--dir', dir, '--budget-kb', '10');
    expect(under.status).toBe(0);
    expect(under.stdout).toMatch(/gzipped \(budget 10 kB gzipped\) in 4 file\(s\)/);
    const missing = run('--dir', join(dir, 'nothing-here'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/run npm run build/);
  });
});
