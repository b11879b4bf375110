import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const electronOnlyHere = ['src-main/electron/**', 'src-main/index.ts', 'src-preload/index.ts', 'test/electron/**'];

// The import direction between layers (no-restricted-imports zones). A file matched by several
// zones gets the rule of the last one, so every zone repeats the ban on 'electron'.
const ELECTRON = {
  paths: [{ name: 'electron', message: "Only src-main/electron/, src-main/index.ts and the preload may import 'electron'; keep behaviour in src-main/core and src-main/app." }],
  patterns: [{ group: ['electron/*'], message: "Only src-main/electron/, src-main/index.ts and the preload may import 'electron'." }],
};

/** Relative imports of these folders of the repository, from any depth (packages are not matched). */
const folders = (...names) => names.flatMap((n) => [`./${n}`, `./${n}/**`, `../**/${n}`, `../**/${n}/**`]);

function restrict({ paths = [], patterns = [] } = {}) {
  return ['error', { paths: [...ELECTRON.paths, ...paths], patterns: [...ELECTRON.patterns, ...patterns] }];
}

export default tseslint.config(
  { ignores: ['.tmp/**', 'out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The runtime boundary: only the Electron adapters (and the preload) may import 'electron'.
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: electronOnlyHere,
    rules: { 'no-restricted-imports': restrict() },
  },
  {
    // core/ is pure behaviour: it imports nothing above it (the app layer, the shells, the emulator),
    // except the plain data every runtime shares: src-shared/limits (a label's longest length) and
    // src-shared/vocabulary (the product's words for verdicts, health and service errors) and
    // src-shared/duration (durations in words).
    files: ['src-main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        patterns: [
          {
            group: [...folders('app', 'cli', 'host', 'electron', 'emulator', 'src-preload', 'src-renderer'), '../**/src-shared/*', '!../**/src-shared/limits', '!../**/src-shared/vocabulary', '!../**/src-shared/duration'],
            message: 'src-main/core imports nothing above it: not app/, cli/, host/, electron/, emulator/ nor the contract.',
          },
        ],
      }),
    },
  },
  {
    // The emulator stands for the service: it may share only the ports and the signature module
    // with the client, so it cannot agree with the client by construction.
    files: ['src-main/emulator/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        patterns: [
          {
            group: [...folders('app', 'cli', 'host', 'electron', 'src-shared', 'src-preload', 'src-renderer'), '../**/core/*', '../**/core/**', '!../**/core/ports', '!../**/core/signature', '!../**/core/signature/**'],
            message: 'The emulator reaches core only through core/ports and core/signature, and nothing else of the app.',
          },
        ],
      }),
    },
  },
  {
    // The shared contract is imported by every runtime: it imports nothing but the shared words.
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        paths: nodeBuiltins.map((name) => ({ name, message: 'The contract is plain types and data for every runtime: no Node built-ins.' })),
        patterns: [{ group: ['./*', '!./vocabulary', '../*', '../**'], message: 'The contract imports nothing but src-shared/vocabulary.' }],
      }),
    },
  },
  {
    // The renderer is a web page: only the shared contract from the rest of the repository, no
    // Node built-ins, and no electron either.
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': restrict({
        paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not available in the renderer.' })),
        patterns: [{ group: folders('src-main', 'src-preload'), message: 'The renderer talks to the main process only through the contract (src-shared/contract.ts) and its bridge.' }],
      }),
    },
  },
);
