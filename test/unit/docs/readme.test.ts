// The README stays a page a newcomer reads: short, and with lines that fit a window. The details
// belong in docs/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const README = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');

describe('README.md', () => {
  it('is at most 150 lines of at most 120 characters', () => {
    const lines = README.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(150);
    expect(lines.filter((l) => l.length > 120)).toEqual([]);
  });

  it('gives the command that runs the app and the one that tests it', () => {
    expect(README).toContain('npm ci && npm run build && npm start');
    expect(README).toContain('npm test');
  });
});
