// Tests measure what they say: no elapsed-time bounds, time ratios or long wall-clock sleeps in unit
// and integration tests (durations are `npm run bench`'s), and no e2e waitForTimeout over 500 ms
// (e2e tests wait for states). The scanner is checked on planted lines first, then run on the tree.
import { describe, expect, it } from 'vitest';
import { scanText, scanTree, type Finding } from '../../helpers/test-hygiene';

const unit = (line: string) =>
  scanText('planted.test.ts', `import { it } from 'vitest';\n${line}\n`, 'unit').map((f) => f.rule);
const e2e = (line: string) =>
  scanText('planted.spec.ts', `import { test } from '@playwright/test';\n${line}\n`, 'e2e').map((f) => f.rule);

/**
 * Findings in test files not yet rewritten, by file and rule. An entry that no longer matches
 * anything fails the test, so the list only shrinks.
 */
const NOT_YET_REWRITTEN: Array<Pick<Finding, 'file' | 'rule'>> = [
  { file: 'test/unit/core/tunnel/receiver-cases.test.ts', rule: 'elapsed wall-clock time' },
  { file: 'test/integration/tunnel-e2e.test.ts', rule: 'wall-clock sleep over 100 ms' },
];

describe('the test-hygiene scanner, on planted lines', () => {
  it.each([
    ['elapsed wall-clock time', 'expect(Date.now() - started).toBeLessThan(5_000);'],
    ['elapsed wall-clock time', '  return performance.now() - t0;'],
    ['elapsed wall-clock time', 'const [s, ns] = process.hrtime(start);'],
    ['time ratio', 'expect(emulatorMs).toBeLessThan(3 * bareMs);'],
    ['time ratio', 'expect(ours).toBeLessThanOrEqual(1.5 * baselineTime);'],
    ['wall-clock sleep over 100 ms', 'await act(() => new Promise((r) => setTimeout(r, 250)));'],
    ['wall-clock sleep over 100 ms', 'await new Promise<void>((resolve) => setTimeout(resolve, 1_500));'],
    ['wall-clock sleep over 100 ms', 'await sleepMs(400); // a few more cycles'],
  ])('unit/integration: finds %s in `%s`', (rule, line) => {
    expect(unit(line)).toEqual([rule]);
  });

  it.each([
    'const before = Date.now() - 105_000;',
    'expect(reconnecting.at - droppedAt).toBeLessThanOrEqual(1100);',
    'await new Promise((r) => setTimeout(r, 0));',
    'await new Promise((r) => setTimeout(r, 100));',
    "env.pool.intercept({ method: 'GET', path: '/x' }).reply(200, {}).delay(5_000);",
    'await sleep(clock, 5_000);',
    '// expect(Date.now() - t0).toBeLessThan(100) in a comment',
  ])('unit/integration: lets `%s` through', (line) => {
    expect(unit(line)).toEqual([]);
  });

  it.each([
    ['await page.waitForTimeout(7_000);', ['waitForTimeout over 500 ms (or not a number)']],
    ['await page.waitForTimeout(nextAt - Date.now());', ['waitForTimeout over 500 ms (or not a number)']],
    ['await new Promise((r) => setTimeout(r, 1500));', ['sleep over 500 ms (or not a number)']],
    ['await page.waitForTimeout(500);', []],
    ['if (!seen) await page.waitForTimeout(150);', []],
    ["await expect(page.getByText('Done')).toBeVisible({ timeout: 10_000 });", []],
  ])('e2e: `%s` → %j', (line, rules) => {
    expect(e2e(line)).toEqual(rules);
  });

  it('names the file and the line', () => {
    expect(scanText('x.test.ts', 'a\nb\nexpect(performance.now() - t).toBeLessThan(9);\n', 'unit')).toEqual([
      {
        file: 'x.test.ts',
        line: 3,
        rule: 'elapsed wall-clock time',
        text: 'expect(performance.now() - t).toBeLessThan(9);',
      },
    ]);
  });
});

/** This file, whose planted lines are findings by design. */
const SELF = 'test/unit/lint/test-hygiene.test.ts';

describe('the tests of this repository', () => {
  const known = (f: Finding) => NOT_YET_REWRITTEN.some((k) => k.file === f.file && k.rule === f.rule);

  it('unit and integration tests assert no wall-clock durations and sleep no longer than 100 ms', async () => {
    const all = await scanTree(process.cwd(), ['test/unit', 'test/integration'], 'unit');
    expect(all.some((f) => f.file === SELF)).toBe(true); // the tree was read: this file's planted lines were found
    const found = all.filter((f) => f.file !== SELF);
    expect(found.filter((f) => !known(f))).toEqual([]);
    const stale = NOT_YET_REWRITTEN.filter((k) => !found.some((f) => f.file === k.file && f.rule === k.rule));
    expect(stale, 'these files are clean now: remove them from NOT_YET_REWRITTEN').toEqual([]);
  });

  it('e2e tests wait for states: no waitForTimeout (or sleep) over 500 ms', async () => {
    expect(await scanTree(process.cwd(), ['test/e2e'], 'e2e')).toEqual([]);
  });
});
