// Proof that data is gone: which files under a folder still hold some bytes, read whole, in every subfolder.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Every file under `root` (its path relative to `root`) whose bytes contain any of `needles`. */
export async function filesHolding(root: string, needles: Buffer | readonly Buffer[]): Promise<string[]> {
  const list = Buffer.isBuffer(needles) ? [needles] : needles;
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    // A file removed while the folder is read holds nothing.
    const bytes = await readFile(file).catch(() => null);
    if (bytes && list.some((n) => bytes.includes(n))) out.push(path.relative(root, file));
  }
  return out;
}

/**
 * A phrase as written, and the middle of its base64 at each of the three alignments (the tunnel log
 * keeps bodies so): what to look for to know the phrase is nowhere.
 */
export function phraseForms(phrase: string): Buffer[] {
  const out = [Buffer.from(phrase)];
  for (const pad of ['', 'x', 'xx']) {
    const b64 = Buffer.from(pad + phrase).toString('base64');
    const skip = Math.ceil((pad.length * 4) / 3);
    out.push(Buffer.from(b64.slice(skip + 2, b64.length - 4)));
  }
  return out;
}
