// One writer per tunnel data dir: `writer.lock` (see core/lock-file.ts). A second writer is refused
// with a message naming the holder and saying what still works meanwhile.
import { acquireLockFile, holderWords, type HeldLock } from '../lock-file';

export { LockedError } from '../lock-file';
export type WriterLock = HeldLock;

const LOCK_FILE = 'writer.lock';

/** Takes the writer lock of `dir` (created 0700 when missing), or throws LockedError. */
export function acquireWriterLock(dir: string): Promise<WriterLock> {
  return acquireLockFile(dir, LOCK_FILE, (holder) =>
    holder
      ? `the tunnel data folder ${dir} is in use by another writer (${holderWords(holder)}, since ${new Date(holder.since).toISOString()}): stop it first, or give this one its own --data-dir. Reading (deliveries list/show/export) works meanwhile.`
      : `the tunnel data folder ${dir} is in use by another writer`,
  );
}
