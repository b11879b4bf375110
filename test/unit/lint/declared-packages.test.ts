// Every package the code, the tests, the benchmarks and the scripts import is declared in package.json
// (dependencies or devDependencies), so a clean install has it whatever other packages pull in.
// Imports are read by TypeScript's import scanner: declarations, re-exports, import() calls and import
// types, not text that merely looks like one. The reader is checked on a planted file first.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const DIRS = ['src-main', 'src-shared', 'src-preload', 'src-renderer', 'test', 'scripts'];
const ROOT_FILES = ['electron.vite.config.ts', 'electron-builder.ts', 'playwright.config.ts', 'vitest.config.ts'];

/** The package names a source file imports (a scoped name keeps its scope; subpaths are dropped). */
function importedPackages(fileName: string, text: string): string[] {
  // TypeScript's import scanner: declarations, re-exports, import() calls and import types, read from
  // tokens (a string that merely looks like an import is not one). Much faster than a full parse.
  const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  const builtins = new Set(builtinModules);
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('/') && !s.startsWith('node:') && !builtins.has(s))
    .map((s) =>
      s
        .split('/')
        .slice(0, s.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (/\.(c|m)?(t|j)sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

describe('the import reader, on a planted file', () => {
  it('reads declarations, re-exports, import() and import types; drops subpaths, built-ins and relative paths', () => {
    const text = [
      "import { a } from 'zod';",
      "import type { B } from '@scope/pkg/sub';",
      "export * from 'left-pad/lib/x.js';",
      "const m = import('late');",
      "type T = import('typed').T;",
      "import fs from 'node:fs';",
      "import path from 'path';",
      "import { c } from './local';",
      "const s = `import x from 'in-a-string'`;",
    ].join('\n');
    expect(importedPackages('planted.ts', text).sort()).toEqual(['@scope/pkg', 'late', 'left-pad', 'typed', 'zod']);
  });
});

describe('the tree', () => {
  it('declares every package it imports', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const declared = new Set([
      pkg.name,
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.devDependencies ?? {}),
    ]);
    const files = [
      ...DIRS.flatMap((d) => sourceFiles(path.join(root, d))),
      ...ROOT_FILES.map((f) => path.join(root, f)),
    ];
    const undeclared = files.flatMap((f) =>
      importedPackages(f, readFileSync(f, 'utf8'))
        .filter((p) => !declared.has(p))
        .map((p) => `${path.relative(root, f)}: ${p}`),
    );
    expect(undeclared).toEqual([]);
  });
});
