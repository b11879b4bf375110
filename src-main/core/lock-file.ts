// One holder per lock file: the file holds the holder's pid and host. A second taker is refused
// with the holder named (LockedError); a lock left by a process that is gone (same host, pid not
// running) is taken over. The take-over itself is guarded by an exclusive `<file>.takeover` folder
// (mkdir is atomic), so two processes finding the same stale lock cannot both take it. Within one
// process a second taker of the same file is refused as well. Used for the tunnel's writer
// (tunnel/lock.ts) and the companion's alert webhook sender (app/companion/alert-sender.ts).
import { hostname } from 'node:os';
import { mkdir, open, readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './tunnel/private-files';
import { CompanionError } from './errors';

/** A take-over guard older than this was left by a crash mid-take-over. */
const TAKEOVER_STALE_MS = 10_000;

export interface LockHolder {
  pid: number;
  host: string;
  since: number;
}

export class LockedError extends CompanionError {
  constructor(
    readonly dir: string,
    /** Who holds it (null: its file could not be read). */
    readonly holder: LockHolder | null,
    message: string,
  ) {
    super(message);
    this.name = 'LockedError';
  }
}

/** The holder in words: "process 1234" (with " on <host>" when it is another machine's). */
export function holderWords(h: LockHolder): string {
  return `process ${h.pid}${h.host !== hostname() ? ` on ${h.host}` : ''}`;
}

export interface HeldLock {
  readonly path: string;
  release(): Promise<void>;
}

const heldHere = new Set<string>();

/** Whether a process of this machine with that pid is running (ours to signal or not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const o = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
    if (typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0)
      return {
        pid: o.pid,
        host: typeof o.host === 'string' ? o.host : hostname(),
        since: typeof o.since === 'number' ? o.since : 0,
      };
  } catch {
    // unreadable or half-written: treated like no holder (see below)
  }
  return null;
}

/** No holder, or one on this host that is gone (our own pid, not held here: left by an earlier process). */
function stale(h: LockHolder | null): boolean {
  return h === null || (h.host === hostname() && (h.pid === process.pid || !processAlive(h.pid)));
}

function content(): string {
  return `${JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() })}\n`;
}

async function createExclusive(path: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(content());
  } catch (err) {
    // (A full disk, say:) no empty lock file is left behind for the next writer to puzzle over.
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
  await fh.close();
  return true;
}

/** Replaces a stale lock under the take-over guard; false when someone else holds the lock now. */
async function takeOver(path: string, seen: LockHolder | null): Promise<boolean> {
  const guard = `${path}.takeover`;
  try {
    await mkdir(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > TAKEOVER_STALE_MS) await rmdir(guard).catch(() => undefined);
    return false;
  }
  try {
    const now = await readHolder(path);
    // Someone replaced it since we looked: it is theirs.
    if (JSON.stringify(now) !== JSON.stringify(seen) || !stale(now)) return false;
    await writeFileAtomic(path, content(), { mode: PRIVATE_FILE_MODE });
    return true;
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
}

/**
 * Takes the lock file `name` of `dir` (created 0700 when missing), or throws LockedError with the
 * words `locked` gives it for the holder (null: its file could not be read).
 */
export async function acquireLockFile(
  dir: string,
  name: string,
  locked: (holder: LockHolder | null) => string,
): Promise<HeldLock> {
  const path = join(dir, name);
  const refuse = (h: LockHolder | null) => new LockedError(dir, h, locked(h));
  if (heldHere.has(path)) throw refuse(await readHolder(path));
  await ensurePrivateDir(dir);
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await createExclusive(path)) break;
    const holder = await readHolder(path);
    if (!stale(holder)) throw refuse(holder);
    if (holder === null) {
      // Possibly a taker between creating the file and writing its pid: give it a moment.
      await new Promise((r) => setTimeout(r, 25));
      const again = await readHolder(path);
      if (again !== null && !stale(again)) throw refuse(again);
      if (await takeOver(path, again)) break;
    } else if (await takeOver(path, holder)) break;
    if (attempt === 19) throw refuse(await readHolder(path));
    await new Promise((r) => setTimeout(r, 10 + attempt * 10));
  }
  heldHere.add(path);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(path);
      const h = await readHolder(path);
      if (h && h.pid === process.pid && h.host === hostname()) await unlink(path).catch(() => undefined);
    },
  };
}
