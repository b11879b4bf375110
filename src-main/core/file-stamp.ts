// What tells one version of a file from another without reading it: its size, modification time and
// inode (an atomic write renames a new file over it). Watchers of files another process writes
// compare stamps and read only when one changed.
import { stat } from 'node:fs/promises';

/** The file's stamp, or 'none' when it cannot be looked at (missing). */
export async function fileStamp(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return 'none';
  }
}
