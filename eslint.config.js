import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const electronOnlyHere = ['src-main/electron/**', 'src-main/index.ts', 'src-preload/index.ts', 'test/electron/**'];

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
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: "Only src-main/electron/ and src-main/index.ts may import 'electron'; keep behaviour in src-main/core." }],
        patterns: [{ group: ['electron/*'], message: "Only src-main/electron/ and src-main/index.ts may import 'electron'." }],
      }],
    },
  },
  {
    // The renderer is a web page: no Node built-ins, and no electron either.
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'electron', message: 'The renderer talks to the core only through the contract bridge.' },
          ...nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not available in the renderer.' })),
        ],
      }],
    },
  },
);
