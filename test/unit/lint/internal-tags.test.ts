// No export is kept for the tests alone: tests use the public API. knip --production (the unused-export
// gate) passes an export tagged @internal whoever imports it, so the tag itself is what is checked:
// the shipped source carries none.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const DIRS = ['src-main', 'src-shared', 'src-preload', 'src-renderer'];

/** The lines of a source text that tag an export @internal. */
function internalTags(text: string): string[] {
  return text.split('\n').filter((l) => /^\s*(\/\*\*|\*)\s*@internal\b/.test(l));
}

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(full));
    else if (/\.tsx?$/.test(e.name)) out.push(full);
  }
  return out;
}

describe('the @internal tag', () => {
  it('is found in both JSDoc forms, and not in other words', () => {
    expect(internalTags('/** @internal Exported for tests. */\nexport const a = 1;')).toHaveLength(1);
    expect(internalTags('/**\n * A thing.\n * @internal Exported for tests.\n */\nexport const a = 1;')).toHaveLength(
      1,
    );
    expect(internalTags('// the internal clock\nconst internal = 1;')).toEqual([]);
  });

  it('is in no shipped source file', () => {
    const tagged = DIRS.flatMap((d) => sources(path.join(root, d)))
      .filter((f) => internalTags(readFileSync(f, 'utf8')).length > 0)
      .map((f) => path.relative(root, f));
    expect(tagged).toEqual([]);
  });
});
