import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';
import layers from './scripts/lint-layers.mjs';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const electronOnlyHere = ['src-main/electron/**', 'src-main/index.ts', 'src-preload/index.ts', 'test/electron/**'];

// The import direction between layers: zones of layers/imports (no-restricted-imports, applied to
// import() calls and import types too). A file matched by several zones gets the rule of the last
// one, so every zone repeats the ban on 'electron', and a narrower zone repeats its wider one's.
const ELECTRON = {
  paths: [
    {
      name: 'electron',
      message:
        "Only src-main/electron/, src-main/index.ts and the preload may import 'electron'; keep behaviour in src-main/core and src-main/app.",
    },
  ],
  patterns: [
    {
      group: ['electron/*'],
      message: "Only src-main/electron/, src-main/index.ts and the preload may import 'electron'.",
    },
  ],
};

/** Relative imports of these folders of the repository, from any depth (packages are not matched). */
const folders = (...names) => names.flatMap((n) => [`./${n}`, `./${n}/**`, `../**/${n}`, `../**/${n}/**`]);

function restrict({ paths = [], patterns = [] } = {}) {
  return ['error', { paths: [...ELECTRON.paths, ...paths], patterns: [...ELECTRON.patterns, ...patterns] }];
}

/**
 * core/ imports nothing above it, except the plain data and rules every runtime shares:
 * src-shared/limits (a label's longest length), src-shared/url (URL and loopback rules),
 * src-shared/vocabulary (the product's words for verdicts, health and service errors),
 * src-shared/duration (durations in words), src-shared/message-words (a message in one line) and
 * src-shared/words (what people read: health, verdicts, severity, incident lengths) and
 * src-shared/terminal-text (which characters a name may not hold) and src-shared/agent-labels (an agent's labels).
 */
const CORE = {
  group: [
    ...folders('app', 'cli', 'host', 'electron', 'emulator', 'src-preload', 'src-renderer'),
    '../**/src-shared/*',
    '!../**/src-shared/limits',
    '!../**/src-shared/url',
    '!../**/src-shared/vocabulary',
    '!../**/src-shared/duration',
    '!../**/src-shared/message-words',
    '!../**/src-shared/words',
    '!../**/src-shared/terminal-text',
    '!../**/src-shared/agent-labels',
  ],
  message: 'src-main/core imports nothing above it: not app/, cli/, host/, electron/, emulator/ nor the contract.',
};

/** The low-level modules of core/: the words, the wire and the stores every feature of core builds on. */
const CORE_LOW_LEVEL = [
  ...['url', 'backoff', 'deadlines', 'ports', 'events', 'socket-words', 'input-words'].map(
    (m) => `src-main/core/${m}.ts`,
  ),
  ...['signature', 'api', 'secrets', 'teams'].map((m) => `src-main/core/${m}/**/*.ts`),
];
const CORE_FEATURES = {
  group: folders('tunnel', 'monitor', 'chat', 'expose', 'metrics'),
  message:
    'The low-level modules of core (url, backoff, signature, api, secrets, teams, …) never import its features: not tunnel/, monitor/, chat/, expose/ nor metrics/.',
};

/** The shells: each composes the app for one runtime and imports no other shell. */
const SHELL = (others, more = '') => ({
  group: folders(...others, 'src-preload', 'src-renderer'),
  message: `A shell imports no other shell (not ${others.map((o) => `${o}/`).join(' nor ')}): what shells share lives in src-main/app.${more}`,
});

/**
 * The shells reach core only through the app layer: what a shell needs from core is a service or a use case
 * of src-main/app (or a plain rule of src-shared).
 */
const SHELL_NO_CORE = {
  group: folders('core'),
  message:
    'A shell (cli/, host/, electron/, src-main/index.ts) imports only src-main/app and src-shared: what it needs from src-main/core, the app layer offers.',
};

/**
 * A zone of src-shared, which every runtime imports: no Node built-ins, and of the repository's modules none that
 * `blocked` matches (by default anything beside or above the zone's files) but the `allowed` ones (import paths
 * relative to the zone's files).
 */
const sharedZone = (files, allowed, message, blocked = ['./*', '../*', '../**']) => ({
  files: [files],
  rules: {
    'layers/imports': restrict({
      paths: nodeBuiltins.map((name) => ({
        name,
        message: 'The contract is plain types and data for every runtime: no Node built-ins.',
      })),
      patterns: [{ group: [...blocked, ...allowed.map((a) => `!${a}`)], message }],
    }),
  },
});

export default tseslint.config(
  { ignores: ['.tmp/**', 'out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { layers },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // No import cycle, type-only imports included: in the main process's tree, and in the renderer's.
    files: ['src-main/**/*.ts'],
    rules: { 'layers/no-cycle': ['error', { within: 'src-main' }] },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    rules: { 'layers/no-cycle': ['error', { within: 'src-renderer' }] },
  },
  {
    // The runtime boundary: only the Electron adapters (and the preload) may import 'electron'.
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: electronOnlyHere,
    rules: { 'layers/imports': restrict() },
  },
  {
    // core/ is pure behaviour: it imports nothing above it (the app layer, the shells, the emulator).
    files: ['src-main/core/**/*.ts'],
    rules: { 'layers/imports': restrict({ patterns: [CORE] }) },
  },
  {
    // An order inside core/: the low-level modules never import the features built on them.
    files: CORE_LOW_LEVEL,
    rules: { 'layers/imports': restrict({ patterns: [CORE, CORE_FEATURES] }) },
  },
  {
    // The app layer (the use cases every shell runs) imports no shell, and not the emulator: only
    // the demo (below) starts it, on demand.
    files: ['src-main/app/**/*.ts'],
    rules: {
      'layers/imports': restrict({
        patterns: [
          {
            group: folders('cli', 'host', 'electron', 'src-preload', 'src-renderer'),
            message: 'src-main/app imports no shell (cli/, host/, electron/): the shells import the app.',
          },
          {
            group: folders('emulator'),
            message: 'src-main/app imports the emulator only in app/companion/demo.ts (the demo team).',
          },
        ],
      }),
    },
  },
  {
    files: ['src-main/app/companion/demo.ts'],
    rules: {
      'layers/imports': restrict({
        patterns: [
          {
            group: folders('cli', 'host', 'electron', 'src-preload', 'src-renderer'),
            message: 'src-main/app imports no shell (cli/, host/, electron/): the shells import the app.',
          },
        ],
      }),
    },
  },
  {
    // The desktop shell: src-main/index.ts (its composition root) and the Electron adapters.
    files: ['src-main/electron/**/*.ts', 'src-main/index.ts'],
    rules: { 'layers/imports': ['error', { patterns: [SHELL(['cli', 'host']), SHELL_NO_CORE] }] },
  },
  {
    files: ['src-main/host/**/*.ts'],
    rules: { 'layers/imports': restrict({ patterns: [SHELL(['cli', 'electron']), SHELL_NO_CORE] }) },
  },
  {
    // The team hub's network shell (members, roles): started by cli/commands/hub.ts, like the browser host by serve.
    files: ['src-main/hub/**/*.ts'],
    rules: { 'layers/imports': restrict({ patterns: [SHELL(['cli', 'electron', 'host']), SHELL_NO_CORE] }) },
  },
  {
    // The CLI starts the browser host for `serve`, and nowhere else.
    files: ['src-main/cli/**/*.ts'],
    ignores: ['src-main/cli/commands/serve.ts'],
    rules: {
      'layers/imports': restrict({
        patterns: [SHELL(['electron', 'host'], ' Only cli/commands/serve.ts starts the browser host.'), SHELL_NO_CORE],
      }),
    },
  },
  {
    files: ['src-main/cli/commands/serve.ts'],
    rules: { 'layers/imports': restrict({ patterns: [SHELL(['electron']), SHELL_NO_CORE] }) },
  },
  {
    // The emulator stands for the service: it shares only the ports, the signature module and the
    // plain http(s) URL rule (src-shared/url) with the client, and decides everything else on its
    // own, so it cannot agree with the client by construction.
    files: ['src-main/emulator/**/*.ts'],
    rules: {
      'layers/imports': restrict({
        patterns: [
          {
            group: [
              ...folders('app', 'cli', 'host', 'electron', 'src-preload', 'src-renderer'),
              '../**/src-shared/*',
              '!../**/src-shared/url',
              '../**/core/*',
              '../**/core/**',
              '!../**/core/ports',
              '!../**/core/signature',
              '!../**/core/signature/**',
            ],
            message:
              'The emulator reaches core only through core/ports and core/signature, and src-shared only through src-shared/url.',
          },
        ],
      }),
    },
  },
  // The shared contract is imported by every runtime: it imports nothing but the shared words.
  sharedZone(
    'src-shared/**/*.ts',
    ['./vocabulary', './duration'],
    'The contract imports nothing but src-shared/vocabulary (and the words, src-shared/duration).',
  ),
  // The role table names the contract's requests (their names only: a type import).
  sharedZone(
    'src-shared/roles.ts',
    ['./vocabulary', './contract'],
    'The role table imports nothing but the contract (its request names) and src-shared/vocabulary.',
  ),
  // The contract itself: its DTOs by domain (src-shared/contract/) besides the shared words.
  sharedZone(
    'src-shared/contract.ts',
    ['./vocabulary', './contract', './contract/*'],
    'The contract imports nothing but its DTOs (src-shared/contract/) and src-shared/vocabulary.',
  ),
  // The contract's DTOs by domain (src-shared/contract/): each other and the shared words, nothing else.
  sharedZone(
    'src-shared/contract/*.ts',
    ['../vocabulary'],
    "The contract's DTOs import nothing but each other and src-shared/vocabulary.",
    ['../*', '../**/*'],
  ),
  {
    // The renderer is a web page: only the shared contract from the rest of the repository, no
    // Node built-ins, and no electron either.
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'layers/imports': restrict({
        paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not available in the renderer.' })),
        patterns: [
          {
            group: folders('src-main', 'src-preload'),
            message:
              'The renderer talks to the main process only through the contract (src-shared/contract.ts) and its bridge.',
          },
        ],
      }),
    },
  },
);
