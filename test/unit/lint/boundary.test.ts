// The runtime boundary is enforced by lint, not by hope: 'electron' only in the Electron adapters
// (and the preload), Node built-ins never in the renderer.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImportErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint boundary', () => {
  it.each([
    'src-main/core/monitor/x.ts',
    'src-main/core/api/x.ts',
    'src-main/cli/x.ts',
    'src-main/host/x.ts',
    'src-main/emulator/x.ts',
    'src-main/app/x.ts',
    'src-shared/contract.ts',
    'src-renderer/src/x.ts',
  ])("forbids importing 'electron' in %s", async (file) => {
    const errors = await restrictedImportErrors(file, "import { app } from 'electron';\nexport const a = app;\n");
    expect(errors.length).toBe(1);
  });

  it.each(['src-main/electron/x.ts', 'src-main/index.ts', 'src-preload/index.ts'])("allows 'electron' in %s", async (file) => {
    expect(await restrictedImportErrors(file, "import { app } from 'electron';\nexport const a = app;\n")).toEqual([]);
  });

  it.each(['node:fs', 'fs', 'node:child_process', 'path'])('forbids the Node built-in %s in the renderer', async (mod) => {
    const errors = await restrictedImportErrors('src-renderer/src/features/x.ts', `import * as m from '${mod}';\nexport const a = m;\n`);
    expect(errors.length).toBe(1);
  });

  it('allows Node built-ins in the core', async () => {
    expect(await restrictedImportErrors('src-main/core/x.ts', "import * as fs from 'node:fs';\nexport const a = fs;\n")).toEqual([]);
  });
});
