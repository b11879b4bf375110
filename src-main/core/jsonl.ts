// JSON-lines files: one JSON value per line, each line ended by a newline. Private to the user: a file
// is 0600 whenever it is written, also one made earlier with another mode (an older version, another
// tool), not only when it is created.
// - Reading takes the whole lines only: a last line without its newline is torn (a writer stopped
//   mid-line) and left out, as is a line that is not JSON or that the caller's check refuses.
// - Appending first ends a torn last line, so what is appended stands on lines of its own.
// - Rewriting replaces the file atomically (write-file-atomic: a reader sees the old file or the new
//   one, never a mix, and a crash leaves one of them).
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import writeFileAtomic from 'write-file-atomic';

const FILE_MODE = 0o600;
const NEWLINE = 0x0a;

/** A line's value as the caller keeps it, or undefined to skip the line. */
export type LineCheck<T> = (value: unknown) => T | undefined;

export interface JsonLines<T> {
  /** The values of the whole lines the check kept, in file order. */
  records: T[];
  /** Whole non-empty lines, kept or not (what a compaction counts). */
  lines: number;
  /** The text ends in a line without its newline (left out of `records` and `lines`). */
  torn: boolean;
}

/** The values of JSON-lines text (see the top of this file). */
export function parseJsonLines<T>(text: string, check: LineCheck<T>): JsonLines<T> {
  const end = text.lastIndexOf('\n') + 1;
  const out: JsonLines<T> = { records: [], lines: 0, torn: end < text.length };
  if (end === 0) return out;
  for (const line of text.slice(0, end - 1).split('\n')) {
    if (line.trim() === '') continue;
    out.lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const kept = check(value);
    if (kept !== undefined) out.records.push(kept);
  }
  return out;
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** A JSON-lines file's values; a missing file has none (other read errors are thrown). */
export async function readJsonLines<T>(file: string, check: LineCheck<T>): Promise<JsonLines<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (isMissing(err)) return { records: [], lines: 0, torn: false };
    throw err;
  }
  return parseJsonLines(text, check);
}

/** readJsonLines, for the few readers that must finish before anything else runs (a constructor). */
export function readJsonLinesSync<T>(file: string, check: LineCheck<T>): JsonLines<T> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (isMissing(err)) return { records: [], lines: 0, torn: false };
    throw err;
  }
  return parseJsonLines(text, check);
}

/**
 * What was appended from byte `offset` on (a follower passes `next` back): the whole lines only, so a
 * line still being written is read once it is whole. A file now shorter than `offset` was replaced:
 * it is read from its start (`reset`).
 */
export async function readJsonLinesFrom<T>(
  file: string,
  offset: number,
  check: LineCheck<T>,
): Promise<{ records: T[]; next: number; reset: boolean }> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (err) {
    if (isMissing(err)) return { records: [], next: 0, reset: offset > 0 };
    throw err;
  }
  let buf: Buffer;
  let from: number;
  let reset: boolean;
  try {
    const size = (await fh.stat()).size;
    reset = size < offset;
    from = reset ? 0 : offset;
    buf = Buffer.alloc(size - from);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    buf = buf.subarray(0, got);
  } finally {
    await fh.close();
  }
  const end = buf.lastIndexOf(NEWLINE) + 1;
  const { records } = parseJsonLines(buf.toString('utf8', 0, end), check);
  return { records, next: from + end, reset };
}

export interface WriteOptions {
  /** Flush to the disk before resolving (fdatasync): for what must survive a power cut. */
  sync?: boolean;
}

/** Appends each value as a line (see the top of this file). The folder must exist. */
export async function appendJsonLines(file: string, values: readonly unknown[], o: WriteOptions = {}): Promise<void> {
  if (values.length === 0) return;
  let text = '';
  for (const v of values) text += `${JSON.stringify(v)}\n`;
  const fh = await open(file, 'a+', FILE_MODE);
  try {
    const st = await fh.stat();
    if ((st.mode & 0o777) !== FILE_MODE) await fh.chmod(FILE_MODE);
    if (st.size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, st.size - 1);
      if (last[0] !== NEWLINE) text = `\n${text}`;
    }
    await fh.appendFile(text);
    if (o.sync) await fh.datasync();
  } finally {
    await fh.close();
  }
}

/** Replaces the file with one line per value, atomically, 0600, flushed to the disk (see the top of this file). */
export async function rewriteJsonLines(file: string, values: readonly unknown[]): Promise<void> {
  let text = '';
  for (const v of values) text += `${JSON.stringify(v)}\n`;
  await writeFileAtomic(file, text, { mode: FILE_MODE });
}
