// bin/channel-companion.mjs copied into throwaway package folders: it runs out/main/cli.js, says to
// build when there is none, and runs the source only on request and only where tsx is installed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/channel-companion.mjs', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'cc-bin-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function pkg(name: string, files: Record<string, string> = {}): string {
  const dir = join(base, name);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  copyFileSync(BIN, join(dir, 'bin', 'channel-companion.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

function run(dir: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(dir, 'bin', 'channel-companion.mjs'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

describe('channel-companion bin', () => {
  it('runs the built CLI with the arguments and exits with its code', () => {
    const dir = pkg('built', {
      'out/main/cli.js': 'export async function main(argv) { console.log(JSON.stringify(argv.slice(2))); return 7; }',
    });
    const r = run(dir, ['status', '--json']);
    expect(r.stdout.trim()).toBe('["status","--json"]');
    expect(r.status).toBe(7);
  });

  it('without out/ it says to run npm run build and exits 1, loading no TypeScript', () => {
    const dir = pkg('unbuilt', { 'src-main/cli/main.ts': 'export async function main() { return 0; }' });
    const r = run(dir, ['--help']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not built .*run npm run build/);
    expect(r.stdout).toBe('');
  });

  it('CHANNEL_COMPANION_FROM_SOURCE=1 without tsx installed says what to do', () => {
    const dir = pkg('no-tsx', {
      'src-main/cli/main.ts': 'export async function main() { return 0; }',
      'out/main/cli.js': 'export async function main() { return 0; }',
    });
    const r = run(dir, ['--help'], { CHANNEL_COMPANION_FROM_SOURCE: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/needs tsx.*npm install/);
  });

  it('CHANNEL_COMPANION_FROM_SOURCE=1 where there is no source says so', () => {
    const dir = pkg('no-source', { 'out/main/cli.js': 'export async function main() { return 0; }' });
    const r = run(dir, ['--help'], { CHANNEL_COMPANION_FROM_SOURCE: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no source here/);
  });
});
