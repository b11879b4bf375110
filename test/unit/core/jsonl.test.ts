import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendJsonLines,
  parseJsonLines,
  readJsonLines,
  readJsonLinesFrom,
  readJsonLinesSync,
  rewriteJsonLines,
} from '../../../src-main/core/jsonl';

const anyValue = (v: unknown) => v;
const numbers = (v: unknown) => (typeof (v as { n?: unknown })?.n === 'number' ? (v as { n: number }).n : undefined);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (f: string) => (await stat(f)).mode & 0o777;

describe('reading', () => {
  it('takes whole lines only: a torn last line, a line that is not JSON and one the check refuses are skipped', () => {
    const text = '{"n":1}\n\nnot json\n{"x":2}\n{"n":3}\n{"n":4';
    expect(parseJsonLines(text, numbers)).toEqual({ records: [1, 3], lines: 4, torn: true });
    expect(parseJsonLines('{"n":1}\n', numbers)).toEqual({ records: [1], lines: 1, torn: false });
    expect(parseJsonLines('', numbers)).toEqual({ records: [], lines: 0, torn: false });
    expect(parseJsonLines('{"n":1', numbers)).toEqual({ records: [], lines: 0, torn: true });
  });

  it('a missing file has no lines; a folder in its place is an error', async () => {
    expect(await readJsonLines(join(dir, 'none.jsonl'), anyValue)).toEqual({ records: [], lines: 0, torn: false });
    expect(readJsonLinesSync(join(dir, 'none.jsonl'), anyValue).records).toEqual([]);
    await expect(readJsonLines(dir, anyValue)).rejects.toThrow();
  });

  it('from an offset: what was appended since, whole lines only; a shorter file is read again from its start', async () => {
    const f = join(dir, 'a.jsonl');
    await writeFile(f, '{"n":1}\n{"n":2}\n{"n":');
    const first = await readJsonLinesFrom(f, 0, numbers);
    expect(first).toEqual({ records: [1, 2], next: 16, reset: false });
    await writeFile(f, '{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(await readJsonLinesFrom(f, first.next, numbers)).toEqual({ records: [3], next: 24, reset: false });
    await writeFile(f, '{"n":9}\n');
    expect(await readJsonLinesFrom(f, 24, numbers)).toEqual({ records: [9], next: 8, reset: true });
    expect(await readJsonLinesFrom(join(dir, 'none'), 8, numbers)).toEqual({ records: [], next: 0, reset: true });
  });
});

describe('appending', () => {
  it('ends a torn last line first, so the appended lines stand whole', async () => {
    const f = join(dir, 'torn.jsonl');
    await writeFile(f, '{"n":1}\n{"n":2', { mode: 0o600 });
    await appendJsonLines(f, [{ n: 3 }, { n: 4 }]);
    expect((await readJsonLines(f, numbers)).records).toEqual([1, 3, 4]);
    expect(await readFile(f, 'utf8')).toBe('{"n":1}\n{"n":2\n{"n":3}\n{"n":4}\n');
  });

  it('makes the file 0600 when it creates it, and when it finds it with another mode', async () => {
    const created = join(dir, 'new.jsonl');
    await appendJsonLines(created, [{ n: 1 }], { sync: true });
    expect(await modeOf(created)).toBe(0o600);
    const older = join(dir, 'older.jsonl');
    await writeFile(older, '{"n":1}\n');
    await chmod(older, 0o644);
    await appendJsonLines(older, [{ n: 2 }]);
    expect(await modeOf(older)).toBe(0o600);
    expect((await readJsonLines(older, numbers)).records).toEqual([1, 2]);
  });

  it('appends nothing (and creates nothing) for no values', async () => {
    await appendJsonLines(join(dir, 'none.jsonl'), []);
    await expect(stat(join(dir, 'none.jsonl'))).rejects.toThrow();
  });
});

describe('rewriting', () => {
  it('replaces the file whole, 0600, whatever its mode was', async () => {
    const f = join(dir, 'r.jsonl');
    await writeFile(f, '{"n":1}\n{"n":2');
    await chmod(f, 0o644);
    await rewriteJsonLines(f, [{ n: 5 }, { n: 6 }]);
    expect(await readFile(f, 'utf8')).toBe('{"n":5}\n{"n":6}\n');
    expect(await modeOf(f)).toBe(0o600);
  });
});
