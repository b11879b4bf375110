// electron-builder packs the built app for Linux (the unpacked `dir` target) around a stand-in
// Electron distribution: a file carrying Electron's fuse wire, since the real binary cannot be
// downloaded here. Proves the configuration loads and packs, what goes into app.asar and beside it,
// and that the afterPack hook flipped the fuses in the binary. The installers themselves (AppImage,
// deb, dmg, nsis) need tools electron-builder downloads, so they are not built here.
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractFile, listPackage } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild, run } from './built';

// What @electron/fuses looks for: the sentinel, the wire version (1), its length, then one byte per fuse.
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ON = 0x31;
const OFF = 0x30;
// Electron's defaults for the eight V1 fuses: node-ish switches on, the ASAR checks off.
const DEFAULT_WIRE = [ON, OFF, ON, ON, OFF, OFF, OFF, ON];

let dir = '';
let unpacked = '';

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'cc-desktop-'));
  const dist = join(dir, 'electron-dist');
  await mkdir(dist);
  const wire = Buffer.concat([
    Buffer.from('stand-in for the electron binary\n'),
    Buffer.from(SENTINEL),
    Buffer.from([1, DEFAULT_WIRE.length, ...DEFAULT_WIRE]),
  ]);
  await writeFile(join(dist, 'electron'), wire);
  await chmod(join(dist, 'electron'), 0o755);
  await writeFile(join(dist, 'version'), '45.4.1');
  const out = join(dir, 'out');
  const r = await run(join(ROOT, 'node_modules', '.bin', 'electron-builder'), [
    '--linux',
    'dir',
    `-c.electronDist=${dist}`,
    `-c.directories.output=${out}`,
  ]);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const [platformDir] = (await readdir(out)).filter((d) => d.endsWith('-unpacked'));
  expect(platformDir).toBeDefined();
  unpacked = join(out, platformDir!);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the desktop app packed by electron-builder (Linux, unpacked)', () => {
  it('flips the fuses in the Electron binary after packing', async () => {
    const wire = (await getCurrentFuseWire(join(unpacked, 'channel-companion'))) as unknown as Record<number, number>;
    expect(wire[FuseV1Options.RunAsNode]).toBe(OFF);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(OFF);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(OFF);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(ON);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(ON);
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(OFF);
    // Left as Electron ships them.
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(DEFAULT_WIRE[FuseV1Options.EnableCookieEncryption]);
    expect(wire[FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]).toBe(
      DEFAULT_WIRE[FuseV1Options.LoadBrowserProcessSpecificV8Snapshot],
    );
  });

  it('packs the build and the runtime dependencies into app.asar, nothing of the sources or dev tooling', () => {
    const asar = join(unpacked, 'resources', 'app.asar');
    const entries = new Set(listPackage(asar, { isPack: false }).map((p) => p.replaceAll('\\', '/')));
    for (const f of [
      '/package.json',
      '/out/main/index.js',
      '/out/main/cli.js',
      '/out/preload/index.cjs',
      '/out/renderer/index.html',
    ])
      expect(entries, f).toContain(f);
    for (const dep of [
      'commander',
      'undici',
      'zod',
      'qrcode',
      'write-file-atomic',
      'eventsource-parser',
      'jsqr',
      'pngjs',
    ]) {
      expect(entries, dep).toContain(`/node_modules/${dep}/package.json`);
    }
    const top = new Set([...entries].map((p) => p.split('/')[1]));
    expect([...top].sort()).toEqual(['node_modules', 'out', 'package.json']);
    for (const dev of ['react', 'react-dom', 'zustand', 'tsx', 'electron', 'vite', 'vitest'])
      expect(entries, dev).not.toContain(`/node_modules/${dev}`);
    const pkg = JSON.parse(extractFile(asar, 'package.json').toString('utf8')) as { main: string; type: string };
    expect(pkg).toMatchObject({ main: 'out/main/index.js', type: 'module' });
  });

  it('puts the tray icons beside app.asar, where the packaged app looks for them', async () => {
    const tray = (await readdir(join(unpacked, 'resources', 'tray'))).sort();
    const expected = ['connected', 'needs-scan', 'reconnecting', 'unknown', 'unreachable']
      .flatMap((s) => [`${s}.png`, `${s}@2x.png`])
      .sort();
    expect(tray).toEqual(expected);
  });
});
