// The README and docs/ link only to files of this repository that exist, and to headings that exist.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return markdownFiles(file);
    return name.endsWith('.md') ? [file] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Inline links [text](target) outside code blocks and code spans. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

const FILES = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe('links in README.md and docs/', () => {
  it('point at files inside the repository that exist, and at headings they have', () => {
    const broken: string[] = [];
    for (const file of FILES) {
      for (const link of links(file)) {
        if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto: not files of ours
        const [target = '', hash] = link.split('#');
        const resolved = target ? path.resolve(path.dirname(file), target) : file;
        const where = `${path.relative(ROOT, file)}: ${link}`;
        if (path.relative(ROOT, resolved).startsWith('..')) broken.push(`${where} (outside the repository)`);
        else if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (hash && resolved.endsWith('.md') && !anchors(resolved).has(hash))
          broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
