// The unused-export gate of `npm run lint` (knip --production with the repository's knip.json) on
// a small tree laid out like ours: a planted export that only a test imports, a file nothing
// imports, and a package imported but not declared each fail it; exports that the shipped code
// imports pass, and so does one marked @internal whoever imports it: the tree carries no such tag
// (internal-tags.test.ts).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = process.cwd();
const knipBin = path.join(root, 'node_modules', 'knip', 'bin', 'knip.js');
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Lays `files` out in a fresh folder with our knip.json and a package.json, and runs the gate there. */
async function gate(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'knip-gate-'));
  dirs.push(dir);
  copyFileSync(path.join(root, 'knip.json'), path.join(dir, 'knip.json'));
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'gate', private: true, type: 'module', dependencies: { zod: '*' } }),
    'src-preload/index.ts': 'export {};\n',
    'src-renderer/src/main.tsx': "import { LIMIT } from '../../src-shared/limits';\nconsole.log(LIMIT);\n",
    'src-shared/limits.ts': 'export const LIMIT = 3;\n',
    'src-main/cli/main.ts':
      "import { z } from 'zod';\nimport { used } from '../core/words';\nexport function main(): string { return used() + String(z); }\n",
    'src-main/index.ts': "import { used } from './core/words';\nused();\n",
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [knipBin, '--production', '--no-progress', '--reporter', 'compact'],
      { cwd: dir },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

const WORDS = "export function used(): string { return 'words'; }\n";
const TEST = {
  'test/unit/words.test.ts': "import { onlyForTests } from '../../src-main/core/words';\nonlyForTests();\n",
};

// Each case runs knip once (about a second, more on a busy machine).
describe('the unused-export gate', { timeout: 30_000 }, () => {
  it('passes a tree whose exports the shipped code imports', async () => {
    const r = await gate({ 'src-main/core/words.ts': WORDS });
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });

  it('fails on an export that only a test imports, naming it', async () => {
    const r = await gate({
      'src-main/core/words.ts': `${WORDS}export function onlyForTests(): number { return 1; }\n`,
      ...TEST,
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Unused exports \(1\)\s+src-main\/core\/words\.ts: onlyForTests/);
  });

  it('passes an export marked @internal, even one only a test imports (hence internal-tags.test.ts)', async () => {
    const r = await gate({
      'src-main/core/words.ts': `${WORDS}/** @internal Exported for tests. */\nexport function onlyForTests(): number { return 1; }\n`,
      ...TEST,
    });
    expect(r.code).toBe(0);
  });

  it('fails on a file of the shipped tree that nothing imports', async () => {
    const r = await gate({
      'src-main/core/words.ts': WORDS,
      'src-renderer/src/features/orphan.tsx': 'export const orphan = 1;\n',
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Unused files \(1\)\s+src-renderer\/src\/features\/orphan\.tsx/);
  });

  it('fails on a package the shipped code imports without declaring it', async () => {
    const r = await gate({
      'src-main/core/words.ts': `import { marked } from 'marked';\nexport function used(): string { return String(marked); }\n`,
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Unlisted dependencies \(1\)\s+src-main\/core\/words\.ts: marked/);
  });
});
