// Start-up recovery: loads every segment of the log into its contents (log-segments.ts). The writer
// makes the folder and its files private and cuts the newest segment back to its last whole record:
// a torn last line (crash mid-write) and the zero padding written ahead of the records (a segment's
// records end at its first NUL byte: JSON never holds one) go. A reader (readOnly) never cuts: a
// torn last line is simply not read, and a missing folder is an empty log.
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../ports';
import { ensurePrivateDir, privateFiles } from './private-files';
import { newSegment, SEGMENT_RE, segName, type LogContents } from './log-segments';
import { parseRecord } from './records';

export interface RecoveryOptions {
  dir: string;
  readOnly: boolean;
  logger: Logger;
}

/** Loads the segments, oldest first; there is always at least one (the one to write next). */
export async function recover(c: LogContents, o: RecoveryOptions): Promise<void> {
  let names: string[];
  if (o.readOnly) {
    names = await readdir(o.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
  } else {
    await ensurePrivateDir(o.dir);
    await privateFiles(o.dir);
    names = await readdir(o.dir);
  }
  names = names.filter((n) => SEGMENT_RE.test(n)).sort();
  for (let i = 0; i < names.length; i++) {
    const n = Number(SEGMENT_RE.exec(names[i]!)![1]);
    await load(c, o, n, i === names.length - 1);
  }
  c.index.loaded();
  if (c.segments.length === 0) c.segments.push(newSegment(1));
}

async function load(c: LogContents, o: RecoveryOptions, n: number, isLast: boolean): Promise<void> {
  const path = join(o.dir, segName(n));
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    // A reader racing the writer: the segment was dropped meanwhile.
    if (o.readOnly && (err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // Records end at the first NUL (the zero padding), and at the last newline before it.
  const nul = buf.indexOf(0);
  const data = nul < 0 ? buf.length : nul;
  const end = data === 0 ? 0 : buf.lastIndexOf(0x0a, data - 1) + 1;
  if (end < buf.length) {
    if (isLast && !o.readOnly) {
      if (end < data) o.logger.warn('tunnel log: cutting a torn last line', { segment: n, bytes: data - end });
      const fh = await open(path, 'r+');
      try {
        await fh.truncate(end);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    }
    buf = buf.subarray(0, end);
  }
  const seg = newSegment(n);
  seg.bytes = buf.length;
  seg.synced = buf.length;
  c.segments.push(seg);
  for (let start = 0, nl = 0; start < buf.length; start = nl + 1) {
    nl = buf.indexOf(0x0a, start);
    if (nl === start) continue;
    const line = buf.toString('utf8', start, nl);
    const parsed = parseRecord(line);
    if (parsed === null) {
      o.logger.warn('tunnel log: skipping an unreadable line', { segment: n });
      continue;
    }
    if (parsed.kind === 'delivery') {
      seg.written++;
      c.applyDelivery(parsed, seg, buf, start, nl);
    } else c.applyAttempt(parsed, seg, line);
  }
}
