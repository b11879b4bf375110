// The layer boundaries are enforced by lint, not by hope. Each zone of eslint.config.js is checked
// here with a planted import it must refuse and one it must let through:
//   'electron' only in the Electron adapters and the preload;
//   core imports nothing above it (app, cli, host, electron, emulator, the contract), but the
//   shared limits and URL rules (src-shared/limits, src-shared/url) and the words (src-shared/words);
//   the low-level modules of core never import its features (tunnel, monitor, chat, expose, metrics);
//   no import cycle (type-only imports included) in src-main nor in src-renderer;
//   the app layer imports no shell, and the emulator only for the demo;
//   each shell (electron with src-main/index.ts, host, cli) imports no other shell, but `serve`
//   starts the browser host;
//   the shells (cli, host, electron with src-main/index.ts) reach core only through the app layer;
//   the emulator reaches core only through core/ports and core/signature (and src-shared only
//   through src-shared/url);
//   the contract imports nothing;
//   the renderer imports only the contract from the repository, and no Node built-ins.
// A zone holds for every way of naming a module: import and export declarations, import() calls
// and import('…') types.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function errorsOf(filePath: string, source: string, ruleId: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

const FORMS = {
  declaration: (specifier: string) => `import * as m from '${specifier}';\nexport const a = m;\n`,
  'import()': (specifier: string) => `export const load = () => import('${specifier}');\n`,
  'import type': (specifier: string) => `import type * as m from '${specifier}';\nexport type A = typeof m;\n`,
  "import('…') type": (specifier: string) => `export type A = import('${specifier}').Anything;\n`,
  're-export': (specifier: string) => `export * from '${specifier}';\n`,
};

function restrictedImportErrors(
  filePath: string,
  specifier: string,
  form: keyof typeof FORMS = 'declaration',
): Promise<string[]> {
  return errorsOf(filePath, FORMS[form](specifier), 'layers/imports');
}

describe('lint boundary', () => {
  describe("'electron'", () => {
    it.each([
      'src-main/core/monitor/x.ts',
      'src-main/core/api/x.ts',
      'src-main/cli/x.ts',
      'src-main/host/x.ts',
      'src-main/emulator/x.ts',
      'src-main/app/x.ts',
      'src-main/app/companion/x.ts',
      'src-shared/contract.ts',
      'src-renderer/src/x.ts',
    ])('is refused in %s', async (file) => {
      expect(await restrictedImportErrors(file, 'electron')).toHaveLength(1);
    });

    it.each(['src-main/electron/x.ts', 'src-main/index.ts', 'src-preload/index.ts'])(
      'is allowed in %s',
      async (file) => {
        expect(await restrictedImportErrors(file, 'electron')).toEqual([]);
      },
    );
  });

  describe('core imports nothing above it', () => {
    it.each([
      ['src-main/core/monitor/x.ts', '../../app/companion/companion'],
      ['src-main/core/monitor/x.ts', '../../app/handlers'],
      ['src-main/core/tunnel/x.ts', '../../cli/context'],
      ['src-main/core/x.ts', '../host/server'],
      ['src-main/core/x.ts', '../electron/ipc'],
      ['src-main/core/x.ts', '../emulator'],
      ['src-main/core/api/x.ts', '../../emulator/wire'],
      ['src-main/core/api/x.ts', '../../../src-shared/contract'],
    ])('%s may not import %s', async (file, specifier) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/imports nothing above it/);
    });

    it.each([
      ['src-main/core/monitor/x.ts', '../api/client'],
      ['src-main/core/monitor/x.ts', '../events'],
      ['src-main/core/x.ts', './ports'],
      ['src-main/core/x.ts', 'node:fs'],
      ['src-main/core/x.ts', 'zod'],
      ['src-main/core/teams/x.ts', '../../../src-shared/limits'],
      ['src-main/core/x.ts', '../../src-shared/url'],
      ['src-main/core/tunnel/x.ts', '../../../src-shared/vocabulary'],
      ['src-main/core/monitor/x.ts', '../../../src-shared/words'],
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });

    it.each(Object.keys(FORMS) as Array<keyof typeof FORMS>)('refuses the import in the form %s', async (form) => {
      const errors = await restrictedImportErrors('src-main/core/monitor/x.ts', '../../app/handlers', form);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/imports nothing above it/);
    });
  });

  describe('the low-level modules of core never import its features', () => {
    it.each([
      ['src-main/core/url.ts', './tunnel'],
      ['src-main/core/backoff.ts', './monitor/types'],
      ['src-main/core/events.ts', './chat'],
      ['src-main/core/ports.ts', './metrics'],
      ['src-main/core/socket-words.ts', './expose/types'],
      ['src-main/core/api/x.ts', '../monitor'],
      ['src-main/core/api/x.ts', '../tunnel/records'],
      ['src-main/core/signature/x.ts', '../tunnel'],
      ['src-main/core/secrets/x.ts', '../expose/authtoken'],
      ['src-main/core/teams/x.ts', '../chat/types'],
    ])('%s may not import %s', async (file, specifier) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/never import its features/);
    });

    it('refuses a feature loaded on demand', async () => {
      expect(await restrictedImportErrors('src-main/core/api/x.ts', '../tunnel', 'import()')).toHaveLength(1);
    });

    it('still refuses what is above core', async () => {
      const errors = await restrictedImportErrors('src-main/core/api/x.ts', '../../app/handlers');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/imports nothing above it/);
    });

    it.each([
      ['src-main/core/api/x.ts', '../url'],
      ['src-main/core/api/x.ts', '../signature'],
      ['src-main/core/teams/x.ts', '../secrets'],
      ['src-main/core/api/x.ts', './chat-stream'],
      ['src-main/core/tunnel/x.ts', '../monitor/types'],
      ['src-main/core/monitor/x.ts', '../api/client'],
      ['src-main/core/expose/x.ts', '../tunnel'],
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });
  });

  describe('no import cycle', () => {
    const cycleErrors = (filePath: string, source: string) => errorsOf(filePath, source, 'layers/no-cycle');

    it('refuses a type-only cycle (monitor/policy-teams.ts needing a type of monitor/policy.ts)', async () => {
      const errors = await cycleErrors(
        'src-main/core/monitor/policy-teams.ts',
        "import type { AlertPolicy } from './policy';\nexport type P = AlertPolicy;\n",
      );
      expect(errors).toEqual([
        'Import cycle: core/monitor/policy-teams.ts → core/monitor/policy.ts → core/monitor/policy-teams.ts. Move what both sides need into a module of its own.',
      ]);
    });

    it('refuses a longer cycle, through an import() call', async () => {
      const errors = await cycleErrors('src-main/core/url.ts', "export const load = () => import('./api/client');\n");
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^Import cycle: core\/url\.ts → core\/api\/client\.ts → .*core\/url\.ts\./);
    });

    it('lets through an import that leads nowhere back', async () => {
      expect(
        await cycleErrors(
          'src-main/core/url.ts',
          "import { z } from 'zod';\nimport type { Clock } from './ports';\nexport const a = z;\nexport type C = Clock;\n",
        ),
      ).toEqual([]);
    });

    it('refuses a cycle between layers, and one in the renderer', async () => {
      const app = await cycleErrors(
        'src-main/app/static-files.ts',
        "import type { Handlers } from '../host/server';\nexport type H = Handlers;\n",
      );
      expect(app).toEqual([
        'Import cycle: app/static-files.ts → host/server.ts → app/static-files.ts. Move what both sides need into a module of its own.',
      ]);
      const renderer = await cycleErrors(
        'src-renderer/src/store/index.ts',
        "import { App } from '../App';\nexport const a = App;\n",
      );
      expect(renderer).toHaveLength(1);
      expect(renderer[0]).toMatch(/^Import cycle: src\/store\/index\.ts → src\/App\.tsx → .*src\/store\/index\.ts\./);
    });

    it('finds none in the files of core as they are', async () => {
      const results = await eslint.lintFiles(['src-main/core/monitor/**/*.ts']);
      expect(results.length).toBeGreaterThan(5);
      expect(results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'layers/no-cycle'))).toEqual([]);
    });
  });

  describe('the app layer imports no shell', () => {
    it.each([
      ['src-main/app/x.ts', '../cli/context'],
      ['src-main/app/x.ts', '../host/server'],
      ['src-main/app/x.ts', '../electron/ipc'],
      ['src-main/app/companion/x.ts', '../../host/server'],
      ['src-main/app/contract/x.ts', '../../cli/commands/serve'],
      ['src-main/app/companion/demo.ts', '../../cli/context'],
    ])('%s may not import %s', async (file, specifier) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/src-main\/app imports no shell/);
    });

    it('refuses a shell loaded on demand', async () => {
      expect(await restrictedImportErrors('src-main/app/companion/x.ts', '../../host/server', 'import()')).toHaveLength(
        1,
      );
    });

    it('imports the emulator only in the demo', async () => {
      const errors = await restrictedImportErrors('src-main/app/companion/x.ts', '../../emulator', 'import()');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/only in app\/companion\/demo\.ts/);
      expect(await restrictedImportErrors('src-main/app/health.ts', '../emulator/dialect')).toHaveLength(1);
      expect(await restrictedImportErrors('src-main/app/companion/demo.ts', '../../emulator', 'import()')).toEqual([]);
      expect(await restrictedImportErrors('src-main/app/companion/demo.ts', '../../emulator', 'import type')).toEqual(
        [],
      );
    });

    it.each([
      ['src-main/app/companion/x.ts', '../../core/monitor'],
      ['src-main/app/x.ts', '../../src-shared/contract'],
      ['src-main/app/contract/x.ts', '../companion/companion'],
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });
  });

  describe('each shell imports no other shell', () => {
    it.each([
      ['src-main/electron/x.ts', '../host/server'],
      ['src-main/electron/x.ts', '../cli/program'],
      ['src-main/index.ts', './host/server'],
      ['src-main/index.ts', './cli/main'],
      ['src-main/host/x.ts', '../cli/context'],
      ['src-main/host/x.ts', '../electron/ipc'],
      ['src-main/cli/x.ts', '../host/server'],
      ['src-main/cli/commands/x.ts', '../../host/access'],
      ['src-main/cli/commands/x.ts', '../../electron/startup'],
      ['src-main/cli/commands/serve.ts', '../../electron/window'],
    ])('%s may not import %s', async (file, specifier) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/A shell imports no other shell/);
    });

    it('the CLI starts the browser host only in serve', async () => {
      const errors = await restrictedImportErrors('src-main/cli/commands/listen.ts', '../../host/server', 'import()');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/Only cli\/commands\/serve\.ts starts the browser host/);
      expect(await restrictedImportErrors('src-main/cli/commands/serve.ts', '../../host/server', 'import()')).toEqual(
        [],
      );
    });

    it("the CLI outside the Electron shell still may not import 'electron'", async () => {
      expect(await restrictedImportErrors('src-main/cli/commands/serve.ts', 'electron')).toHaveLength(1);
      expect(await restrictedImportErrors('src-main/host/x.ts', 'electron', 'import()')).toHaveLength(1);
    });

    it.each([
      ['src-main/electron/x.ts', '../app/companion/companion'],
      ['src-main/index.ts', './app/contract'],
      ['src-main/index.ts', 'electron'],
      ['src-main/host/x.ts', '../app/handlers'],
      ['src-main/cli/commands/x.ts', '../../app/companion/companion'],
      ['src-main/cli/commands/x.ts', '../../emulator'],
      ['src-main/cli/commands/x.ts', '../context'],
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });
  });

  describe('the shells reach core only through the app layer', () => {
    it.each([
      ['src-main/cli/x.ts', '../core/url'],
      ['src-main/cli/x.ts', '../core/teams/config-file'],
      ['src-main/cli/commands/x.ts', '../../core/tunnel'],
      ['src-main/cli/commands/serve.ts', '../../core/port-owner'],
      ['src-main/host/x.ts', '../core/url'],
      ['src-main/electron/x.ts', '../core/teams'],
      ['src-main/index.ts', './core/ports'],
    ])('%s may not import %s', async (file, specifier) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/A shell .* imports only src-main\/app and src-shared/);
    });

    it.each(Object.keys(FORMS) as Array<keyof typeof FORMS>)('refuses core in the form %s', async (form) => {
      const errors = await restrictedImportErrors('src-main/cli/commands/listen.ts', '../../core/tunnel', form);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/imports only src-main\/app and src-shared/);
    });

    it('still refuses another shell beside core', async () => {
      const errors = await errorsOf(
        'src-main/cli/commands/x.ts',
        "import { a } from '../../core/url';\nimport { b } from '../../electron/startup';\nexport const c = [a, b];\n",
        'layers/imports',
      );
      expect(errors).toHaveLength(2);
    });

    it.each([
      ['src-main/cli/x.ts', '../app/teams'],
      ['src-main/cli/commands/x.ts', '../../app/usecases/monitor'],
      ['src-main/cli/commands/x.ts', '../../../src-shared/url'],
      ['src-main/host/x.ts', '../app/url'],
      ['src-main/electron/x.ts', '../app/ports'],
      ['src-main/index.ts', './app/teams'],
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });
  });

  describe('the emulator reaches core only through core/ports and core/signature', () => {
    it.each([
      '../core/api/types',
      '../core/api/client',
      '../core/teams',
      '../core/tunnel',
      '../core/events',
      '../app/handlers',
      '../cli/context',
      '../host/server',
      '../../src-shared/contract',
    ])('refuses %s', async (specifier) => {
      const errors = await restrictedImportErrors('src-main/emulator/x.ts', specifier);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/core\/ports and core\/signature/);
    });

    it.each(['../core/ports', '../core/signature', '../../src-shared/url', './model', 'node:http', 'zod'])(
      'allows %s',
      async (specifier) => {
        expect(await restrictedImportErrors('src-main/emulator/x.ts', specifier)).toEqual([]);
      },
    );
  });

  describe('the contract imports nothing but the shared words', () => {
    it.each(['../src-main/core/ports', './other', 'node:fs'])('refuses %s', async (specifier) => {
      expect(await restrictedImportErrors('src-shared/contract.ts', specifier)).toHaveLength(1);
    });

    it('allows ./vocabulary', async () => {
      expect(await restrictedImportErrors('src-shared/contract.ts', './vocabulary')).toEqual([]);
    });

    it('keeps the hub a shell: no core, no other shell', async () => {
      expect(await restrictedImportErrors('src-main/hub/x.ts', '../core/tunnel')).toHaveLength(1);
      expect(await restrictedImportErrors('src-main/hub/x.ts', '../host/server')).toHaveLength(1);
      expect(await restrictedImportErrors('src-main/hub/x.ts', '../app/contract-http')).toEqual([]);
    });

    it('lets the contract read its DTOs by domain, and those DTOs only each other and the vocabulary', async () => {
      expect(await restrictedImportErrors('src-shared/contract.ts', './contract/teams')).toEqual([]);
      expect(await restrictedImportErrors('src-shared/contract/tunnel.ts', './errors')).toEqual([]);
      expect(await restrictedImportErrors('src-shared/contract/tunnel.ts', '../vocabulary')).toEqual([]);
      expect(await restrictedImportErrors('src-shared/contract/tunnel.ts', '../words')).toHaveLength(1);
      expect(await restrictedImportErrors('src-shared/contract/tunnel.ts', '../../src-main/app/errors')).toHaveLength(
        1,
      );
      expect(await restrictedImportErrors('src-shared/words.ts', './contract/teams')).toHaveLength(1);
    });

    it('lets the words module use the duration words', async () => {
      expect(await restrictedImportErrors('src-shared/words.ts', './duration')).toEqual([]);
      expect(await restrictedImportErrors('src-shared/words.ts', './contract')).toHaveLength(1);
    });
  });

  describe('the renderer imports only the contract from the repository', () => {
    it.each([
      '../../../src-main/core/api/client',
      '../../src-main/app/health',
      '../../../src-preload/index',
      'node:fs',
      'fs',
      'node:child_process',
      'path',
    ])('refuses %s', async (specifier) => {
      expect(await restrictedImportErrors('src-renderer/src/features/x.ts', specifier)).toHaveLength(1);
    });

    it.each(['../../../src-shared/contract', '../../../src-shared/limits', '../store/react', 'react', 'zustand'])(
      'allows %s',
      async (specifier) => {
        expect(await restrictedImportErrors('src-renderer/src/features/x.ts', specifier)).toEqual([]);
      },
    );
  });

  it('allows Node built-ins in the core', async () => {
    expect(await restrictedImportErrors('src-main/core/x.ts', 'node:fs')).toEqual([]);
  });
});
