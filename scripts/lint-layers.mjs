// Two lint rules for the layers of the source tree (used by eslint.config.js):
//   layers/imports   ESLint's no-restricted-imports, with the same options, applied to every way a
//                    module names another: import and export declarations, import() calls, and
//                    import('…') types. The core rule alone sees only the declarations, so a shell
//                    loading another shell on demand would pass it.
//   layers/no-cycle  no import cycle through the linted file, among the files of the given folder,
//                    counting type-only imports and import() too: a cycle of types is still two
//                    modules that cannot be read, tested or moved apart.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import ts from 'typescript';

const coreRestricted = builtinRules.get('no-restricted-imports');

/** A string literal's value, or undefined. */
function literal(node) {
  return node && node.type === 'Literal' && typeof node.value === 'string' ? node : undefined;
}

const imports = {
  meta: {
    ...coreRestricted.meta,
    docs: { description: 'no-restricted-imports, applied to import() calls and import types too' },
  },
  create(context) {
    const visitors = coreRestricted.create(context);
    /** Checks a specifier named outside a declaration as the core rule checks `import '…'`. */
    const check = (node, source) => {
      if (!source) return;
      visitors.ImportDeclaration({
        type: 'ImportDeclaration',
        source,
        specifiers: [],
        loc: node.loc,
        range: node.range,
        parent: node.parent,
      });
    };
    return {
      ...visitors,
      ImportExpression: (node) => check(node, literal(node.source)),
      TSImportType: (node) => check(node, literal(node.source) ?? literal(node.argument?.literal)),
    };
  },
};

/** The specifiers a file's text names (declarations, import(), import types, require). */
function specifiersIn(text) {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The file a relative specifier names, or undefined (packages, missing files). */
function resolveIn(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Imports of the files on disk, read once per process (the linted file's own come from its text). */
const onDisk = new Map();
function importsOnDisk(file) {
  let found = onDisk.get(file);
  if (!found) {
    found = specifiersIn(readFileSync(file, 'utf8'))
      .map((s) => resolveIn(file, s))
      .filter(Boolean);
    onDisk.set(file, found);
  }
  return found;
}

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no import cycle (type-only imports included) among the files of a folder' },
    schema: [
      { type: 'object', properties: { within: { type: 'string' } }, required: ['within'], additionalProperties: false },
    ],
    messages: { cycle: 'Import cycle: {{route}}. Move what both sides need into a module of its own.' },
  },
  create(context) {
    const within = path.resolve(context.cwd, context.options[0].within);
    const file = path.resolve(context.cwd, context.physicalFilename);
    const inside = (f) => f.startsWith(within + path.sep);
    if (!inside(file)) return {};
    const name = (f) => path.relative(within, f).split(path.sep).join('/');
    return {
      'Program:exit'() {
        const seen = new Set();
        for (const ref of ts.preProcessFile(context.sourceCode.text, true, true).importedFiles) {
          const first = resolveIn(file, ref.fileName);
          if (!first || !inside(first) || seen.has(first)) continue;
          seen.add(first);
          // Breadth-first from this import: the shortest way back to the linted file, if any.
          const cameFrom = new Map([[first, null]]);
          const queue = [first];
          let back = null;
          while (queue.length > 0 && back === null) {
            const at = queue.shift();
            for (const next of importsOnDisk(at)) {
              if (next === file) {
                back = at;
                break;
              }
              if (inside(next) && !cameFrom.has(next)) {
                cameFrom.set(next, at);
                queue.push(next);
              }
            }
          }
          if (back === null) continue;
          const route = [];
          for (let at = back; at !== null; at = cameFrom.get(at)) route.unshift(name(at));
          const loc = {
            start: context.sourceCode.getLocFromIndex(ref.pos),
            end: context.sourceCode.getLocFromIndex(ref.end),
          };
          context.report({ loc, messageId: 'cycle', data: { route: [name(file), ...route, name(file)].join(' → ') } });
        }
      },
    };
  },
};

/** @type {import('eslint').ESLint.Plugin} */
const plugin = { meta: { name: 'layers' }, rules: { imports, 'no-cycle': noCycle } };
export default plugin;
