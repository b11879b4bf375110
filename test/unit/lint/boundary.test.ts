// The layer boundaries are enforced by lint, not by hope. Each zone of eslint.config.js is checked
// here with a planted import it must refuse and one it must let through:
//   'electron' only in the Electron adapters and the preload;
//   core imports nothing above it (app, cli, host, electron, emulator, the contract), but the
//   shared limits and URL rules (src-shared/limits, src-shared/url);
//   the emulator reaches core only through core/ports and core/signature (and src-shared only
//   through src-shared/url);
//   the contract imports nothing;
//   the renderer imports only the contract from the repository, and no Node built-ins.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImportErrors(filePath: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import * as m from '${specifier}';\nexport const a = m;\n`, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
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

    it.each(['src-main/electron/x.ts', 'src-main/index.ts', 'src-preload/index.ts'])('is allowed in %s', async (file) => {
      expect(await restrictedImportErrors(file, 'electron')).toEqual([]);
    });
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
    ])('%s may import %s', async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    });

    it('the app layer may import core and the emulator', async () => {
      expect(await restrictedImportErrors('src-main/app/companion/x.ts', '../../core/monitor')).toEqual([]);
      expect(await restrictedImportErrors('src-main/app/companion/x.ts', '../../emulator')).toEqual([]);
    });
  });

  describe('the emulator reaches core only through core/ports and core/signature', () => {
    it.each(['../core/api/types', '../core/api/client', '../core/teams', '../core/tunnel', '../core/events', '../app/handlers', '../cli/context', '../host/server', '../../src-shared/contract'])(
      'refuses %s',
      async (specifier) => {
        const errors = await restrictedImportErrors('src-main/emulator/x.ts', specifier);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(/core\/ports and core\/signature/);
      },
    );

    it.each(['../core/ports', '../core/signature', '../../src-shared/url', './model', 'node:http', 'zod'])('allows %s', async (specifier) => {
      expect(await restrictedImportErrors('src-main/emulator/x.ts', specifier)).toEqual([]);
    });
  });

  describe('the contract imports nothing', () => {
    it.each(['../src-main/core/ports', './other', 'node:fs'])('refuses %s', async (specifier) => {
      expect(await restrictedImportErrors('src-shared/contract.ts', specifier)).toHaveLength(1);
    });
  });

  describe('the renderer imports only the contract from the repository', () => {
    it.each(['../../../src-main/core/api/client', '../../src-main/app/health', '../../../src-preload/index', 'node:fs', 'fs', 'node:child_process', 'path'])(
      'refuses %s',
      async (specifier) => {
        expect(await restrictedImportErrors('src-renderer/src/features/x.ts', specifier)).toHaveLength(1);
      },
    );

    it.each(['../../../src-shared/contract', '../../../src-shared/limits', '../store/react', 'react', 'zustand'])('allows %s', async (specifier) => {
      expect(await restrictedImportErrors('src-renderer/src/features/x.ts', specifier)).toEqual([]);
    });
  });

  it('allows Node built-ins in the core', async () => {
    expect(await restrictedImportErrors('src-main/core/x.ts', 'node:fs')).toEqual([]);
  });
});
