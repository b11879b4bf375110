// Erasing deliveries' bodies from the log (a deleted conversation's messages): each body's base64 is
// overwritten in place, in every segment file that holds the record and in memory, with the base64
// of as many spaces. The record keeps its length, so every offset the index and the writer hold stays
// right, and the record stays valid JSON: the delivery is still listed (its verdict, its forwards),
// its body reads as blank. The files are synced before this resolves.
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogContents } from './log-segments';
import { SEGMENT_RE } from './log-segments';

const BODY_KEY = Buffer.from('"bodyBase64":"');
/** Base64 of three spaces. */
const BLANK = Buffer.from('ICAg');
const QUOTE = 0x22;
const EQUALS = 0x3d;
const NEWLINE = 0x0a;

/** Overwrites the base64 at buf[from..to) (up to its '=' padding) with blank base64. */
function blank(buf: Buffer, from: number, to: number): void {
  let end = to;
  while (end > from && buf[end - 1] === EQUALS) end--;
  for (let i = from; i < end; i++) buf[i] = BLANK[(i - from) % 4]!;
}

/** The base64 range of the body in the record at buf[start..end), or null. */
function bodyRange(buf: Buffer, start: number, end: number): [number, number] | null {
  const at = buf.indexOf(BODY_KEY, start);
  if (at < 0 || at >= end) return null;
  const from = at + BODY_KEY.length;
  const to = buf.indexOf(QUOTE, from);
  return to < 0 || to > end ? null : [from, to];
}

/** Erases the bodies of `ids` in memory and in every segment file of `dir`; returns records erased on disk. */
export async function eraseBodies(c: LogContents, dir: string, ids: readonly string[]): Promise<number> {
  const wanted = new Set(ids);
  for (const id of wanted) {
    const e = c.index.entries.get(id);
    if (!e) continue;
    const r = bodyRange(e.src, e.start, e.end);
    if (r) blank(e.src, r[0], r[1]);
  }
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => SEGMENT_RE.test(n));
  } catch {
    return 0;
  }
  const needles = [...wanted].map((id) => Buffer.from(`"id":${JSON.stringify(id)}`));
  let erased = 0;
  for (const name of names) {
    const fh = await open(join(dir, name), 'r+');
    try {
      const buf = await fh.readFile();
      let changed = false;
      for (const needle of needles) {
        for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + needle.length)) {
          const start = buf.lastIndexOf(NEWLINE, at) + 1;
          let end = buf.indexOf(NEWLINE, at);
          if (end < 0) end = buf.length;
          if (!buf.subarray(start, end).includes('"kind":"delivery"')) continue;
          const r = bodyRange(buf, start, end);
          if (!r) continue;
          blank(buf, r[0], r[1]);
          await fh.write(buf, r[0], r[1] - r[0], r[0]);
          changed = true;
          erased++;
        }
      }
      if (changed) await fh.datasync();
    } finally {
      await fh.close();
    }
  }
  return erased;
}
