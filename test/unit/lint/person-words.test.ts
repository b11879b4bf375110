// One word per concept in what people read: no text in the screens, the tray, the notifications,
// the alert texts or the command line (the string literals, template texts and JSX text of
// src-renderer/, src-main/ and src-shared/) says a concept in a word the glossary (docs/README.md)
// forbids. Identifiers, state names and comments are not text people read and are not looked at:
// 'unlinked' alone is the service's state name, "needs-scan" the health's. The emulator speaks
// the service's own words and is left out.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src-renderer/src', 'src-main', 'src-shared'];
const SKIP = ['src-main/emulator'];

/** A forbidden way of saying something, and the word to use instead. */
const FORBIDDEN: { pattern: RegExp; instead: string; phrasesOnly?: boolean }[] = [
  { pattern: /\bneeds? scan\b/i, instead: '"Needs a QR scan" (the health word)' },
  { pattern: /\bRejected —/, instead: '"Refused — …" (one word for a refusal)' },
  { pattern: /\bREJECTED\b/, instead: '"Refused — …"' },
  { pattern: /\bDUPLICATE \(/, instead: '"Verified — duplicate …"' },
  { pattern: /\bURGENT\b/, instead: '"Urgent" (the severity word the screens show)' },
  // In a phrase only: a string that is the state name alone is an identifier, not text.
  { pattern: /\bunlinked\b/i, instead: '"needs a QR scan"', phrasesOnly: true },
];

function sourceFiles(dir: string): string[] {
  if (SKIP.includes(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A file's text; '' for one gone since the folder was listed (another process's scratch file). */
function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** Every piece of text in a file: string literals, the text of template literals, JSX text. */
function textsOf(fileName: string, source: string): { text: string; line: number }[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
    ) {
      // Import specifiers and property keys are names, not text.
      const p = node.parent;
      const isName =
        (p && (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isExternalModuleReference(p))) ||
        (p && ts.isPropertyAssignment(p) && p.name === node) ||
        (p && ts.isLiteralTypeNode(p));
      if (!isName) out.push({ text: node.text, line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The forbidden words in one file's texts: "path:line: «text» — say … instead". */
function offences(fileName: string, source: string): string[] {
  const found: string[] = [];
  // Parsed only when a forbidden word appears at all (most files never say one).
  if (!FORBIDDEN.some((f) => new RegExp(f.pattern.source, 'i').test(source))) return found;
  for (const { text, line } of textsOf(fileName, source))
    for (const f of FORBIDDEN) {
      if (f.phrasesOnly && !/\s/.test(text.trim())) continue;
      if (f.pattern.test(text)) found.push(`${fileName}:${line}: «${text.trim()}» — say ${f.instead} instead`);
    }
  return found;
}

describe('the words people read', () => {
  it('no screen, tray, notification, alert or command-line text uses a word the glossary forbids', () => {
    const files = ROOTS.flatMap((r) => sourceFiles(r));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => offences(relative(process.cwd(), f), readIfThere(f)));
    expect(found).toEqual([]);
  });

  it('catches each forbidden variant in text, and leaves names, state names and comments alone', () => {
    const planted = [
      'const tip = `${n} needs scan`;',
      "const v = { 'signature-mismatch': 'Rejected — bad signature' };",
      'const line = `REJECTED ${reason}`;',
      'const t = (a: string) => `${a} was unlinked — a QR scan is needed`;',
      'export const B = () => <p>The number was unlinked.</p>;',
      'const h = `URGENT [${kind}]`;',
    ];
    for (const source of planted) expect(offences('planted.tsx', source), source).toHaveLength(1);
    const allowed = [
      "if (state === 'unlinked') go();",
      "const id = 'agent-unlinked';",
      '// the number was unlinked: it needs scan',
      "const k = { unlinked: 1 }; const h = 'needs-scan';",
      "import { x } from './unlinked words';",
      "const w = 'Needs a QR scan'; const r = 'Refused — bad signature'; const key = 'Key rejected';",
    ];
    for (const source of allowed) expect(offences('allowed.tsx', source), source).toEqual([]);
  });
});
