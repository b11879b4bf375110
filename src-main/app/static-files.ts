// Resolves a URL path to a file inside the renderer's build folder, or null (no traversal, no
// dot-files). Unknown paths without an extension fall back to index.html (hash routing needs none,
// but a reload on "/" must work).
import { stat } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';

export async function resolveStaticFile(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = normalize(decoded === '/' || decoded === '' ? '/index.html' : decoded);
  if (rel.split(/[\\/]/).some((part) => part === '..' || (part.startsWith('.') && part.length > 1))) return null;
  const base = resolve(root);
  const file = resolve(join(base, rel));
  if (file !== base && !file.startsWith(base + sep)) return null;
  try {
    const s = await stat(file);
    return s.isFile() ? file : null;
  } catch {
    return null;
  }
}
