// The renderer that `npm run build` produced stays within its first-load budget (the build itself
// fails above it; this counts the check among the tests).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_KB, measureFirstLoad } from '../../scripts/bundle-size';
import { ROOT, requireBuild } from './built';

beforeAll(() => requireBuild());

describe('renderer first load', () => {
  it(`is at most ${BUDGET_KB} kB gzipped, minified`, async () => {
    const load = await measureFirstLoad(join(ROOT, 'out', 'renderer'));
    expect(load.files.length).toBeGreaterThan(0);
    expect(load.gzip).toBeLessThanOrEqual(BUDGET_KB * 1000);
    // Minified output has no indented lines; Vite's unminified output is full of them.
    const entry = readFileSync(join(ROOT, 'out', 'renderer', load.files[0]!.file), 'utf8');
    expect(entry.split('\n').filter((l) => /^\s{2,}\S/.test(l)).length).toBeLessThan(10);
  });
});
