// The installer configuration (electron-builder.ts): valid against electron-builder's own schema,
// the four installer targets, icons that exist and are large enough, and the fuses its afterPack
// hook flips, asserted on a mocked @electron/fuses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@electron/fuses', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@electron/fuses')>()),
  flipFuses: vi.fn(async () => 1),
}));

import { FuseV1Options, FuseVersion, flipFuses } from '@electron/fuses';
import type { AfterPackContext, Configuration, LinuxConfiguration } from 'electron-builder';
import { validateConfiguration } from 'app-builder-lib/out/util/config/config';
import config from '../../../electron-builder';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TRAY_STATES = ['connected', 'reconnecting', 'needs-scan', 'unreachable', 'unknown'];
const noDebug = { isEnabled: false, add: () => undefined } as never;

function context(electronPlatformName: string, arch: number, extra: object = {}): AfterPackContext {
  return {
    appOutDir: '/dist/unpacked',
    electronPlatformName,
    arch,
    packager: { appInfo: { productFilename: 'Channel Companion' }, ...extra },
  } as unknown as AfterPackContext;
}

const targets = (t: unknown) =>
  Array.isArray(t) ? t.map((x) => (typeof x === 'string' ? x : (x as { target: string }).target)) : [];

describe('electron-builder configuration', () => {
  it('passes electron-builder schema validation, and the validator does reject a misspelt option', async () => {
    // The validator may coerce values in place: it gets a copy (the hook, a function, is not cloneable).
    const copy = (c: Configuration): Configuration => ({
      ...structuredClone({ ...c, afterPack: null }),
      afterPack: c.afterPack ?? null,
    });
    await expect(validateConfiguration(copy(config), noDebug)).resolves.toBeUndefined();
    const typo = { ...config, linux: { ...(config.linux as LinuxConfiguration), targte: ['deb'] } } as Configuration;
    await expect(validateConfiguration(copy(typo), noDebug)).rejects.toThrow(/configuration\.linux/);
  });

  it('builds AppImage and deb on Linux, dmg on macOS, nsis on Windows, into an asar', () => {
    expect(targets(config.linux?.target)).toEqual(['AppImage', 'deb']);
    expect(targets(config.mac?.target)).toEqual(['dmg']);
    expect(targets(config.win?.target)).toEqual(['nsis']);
    expect(config.asar).toBe(true);
    expect(config.afterPack).toBeTypeOf('function');
    expect(config.electronFuses).toBeUndefined();
  });

  it('uses icons that exist: a square app icon of at least 512 px and every tray state', () => {
    for (const icon of [config.linux?.icon, config.mac?.icon, config.win?.icon]) {
      const png = PNG.sync.read(readFileSync(join(ROOT, String(icon))));
      expect(png.width).toBe(png.height);
      expect(png.width).toBeGreaterThanOrEqual(512);
    }
    const [tray] = config.extraResources as { from: string; to: string }[];
    expect(tray).toMatchObject({ from: 'build/tray', to: 'tray' });
    for (const state of TRAY_STATES) {
      for (const file of [`${state}.png`, `${state}@2x.png`])
        expect(PNG.sync.read(readFileSync(join(ROOT, tray!.from, file))).width).toBeGreaterThan(0);
    }
  });
});

describe('fuses flipped after packing', () => {
  beforeEach(() => vi.mocked(flipFuses).mockClear());

  // Spelled out by fuse name, independently of the hook's own table.
  const WANTED: Partial<Record<keyof typeof FuseV1Options, boolean>> = {
    RunAsNode: false,
    EnableNodeOptionsEnvironmentVariable: false,
    EnableNodeCliInspectArguments: false,
    EnableEmbeddedAsarIntegrityValidation: true,
    OnlyLoadAppFromAsar: true,
    GrantFileProtocolExtraPrivileges: false,
  };
  const expected = (resetAdHocDarwinSignature: boolean) => ({
    version: FuseVersion.V1,
    resetAdHocDarwinSignature,
    ...Object.fromEntries(
      Object.entries(WANTED).map(([name, on]) => [FuseV1Options[name as keyof typeof FuseV1Options], on]),
    ),
  });
  const afterPack = config.afterPack as (c: AfterPackContext) => Promise<void>;

  it('on Linux: the executable, exactly these fuses', async () => {
    await afterPack(context('linux', 1, { executableName: 'channel-companion' }));
    expect(flipFuses).toHaveBeenCalledTimes(1);
    expect(vi.mocked(flipFuses).mock.calls[0]).toEqual([join('/dist/unpacked', 'channel-companion'), expected(false)]);
  });

  it('on Windows: the .exe', async () => {
    await afterPack(context('win32', 1));
    expect(vi.mocked(flipFuses).mock.calls[0]).toEqual([
      join('/dist/unpacked', 'Channel Companion.exe'),
      expected(false),
    ]);
  });

  it('on macOS: the .app, re-signed ad hoc on arm64 only', async () => {
    await afterPack(context('darwin', 3));
    await afterPack(context('darwin', 1));
    expect(vi.mocked(flipFuses).mock.calls).toEqual([
      [join('/dist/unpacked', 'Channel Companion.app'), expected(true)],
      [join('/dist/unpacked', 'Channel Companion.app'), expected(false)],
    ]);
  });
});
