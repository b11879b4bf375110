// `npm pack`, installed into an empty prefix the way a user would (`npm i -g --prefix DIR ./tgz`):
// the tarball holds only what runs, `channel-companion --help` works, and `serve --emulator` prints
// its URL, serves the page and answers a contract call made with the URL's token.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, requireBuild, run } from './built';

let dir = '';
let prefix = '';
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'cc-pack-'));
  prefix = join(dir, 'prefix');
  // The build is fresh (requireBuild / npm test's build step): no prepack rebuild here.
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]);
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  const install = await run('npm', [
    'install',
    '--global',
    '--prefix',
    prefix,
    '--no-audit',
    '--no-fund',
    join(dir, packed.filename),
  ]);
  expect(install.code, install.stderr).toBe(0);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const bin = () => join(prefix, 'bin', 'channel-companion');

describe('the packed package', () => {
  it('holds only the bin, the build and the package files', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('bin/channel-companion.mjs');
    expect(paths).toContain('out/main/cli.js');
    expect(paths).toContain('out/renderer/index.html');
    expect(paths).toContain('package.json');
    const outside = paths.filter((p) => !/^(bin|out)\//.test(p) && !/^(package\.json|README\.md)$/.test(p));
    expect(outside).toEqual([]);
  });

  it('installs the runtime dependencies and nothing that is bundled or only for development', () => {
    const modules = join(prefix, 'lib', 'node_modules', 'channel-companion', 'node_modules');
    for (const dep of [
      'commander',
      'undici',
      'zod',
      'qrcode',
      'write-file-atomic',
      'eventsource-parser',
      'jsqr',
      'pngjs',
      '@napi-rs/keyring',
      '@ngrok/ngrok',
    ]) {
      expect(existsSync(join(modules, dep, 'package.json')), dep).toBe(true);
    }
    for (const dev of ['react', 'react-dom', 'zustand', 'tsx', 'electron', 'vite'])
      expect(existsSync(join(modules, dev)), dev).toBe(false);
  });

  it('installed into an empty prefix, answers --help', async () => {
    const r = await run(bin(), ['--help'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Usage: channel-companion/);
    for (const command of ['serve', 'emulator', 'send', 'listen']) expect(r.stdout).toContain(command);
  });

  it('installed, `serve --emulator` prints its URL, serves the page and a contract call with the token, and stops', async () => {
    const child = spawn(
      bin(),
      [
        'serve',
        '--emulator',
        '--port',
        '0',
        '--tunnel-port',
        '0',
        '--config-dir',
        join(dir, 'config'),
        '--data-dir',
        join(dir, 'data'),
      ],
      {
        cwd: dir,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no URL within 30 s; stdout: ${stdout}; stderr: ${stderr}`)),
          30_000,
        );
        const look = () => {
          const m = /Open: (http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(stdout);
          if (m) {
            clearTimeout(timer);
            resolve(new URL(m[1]!));
          }
        };
        child.stdout.on('data', look);
        void exited.then(() => reject(new Error(`exited before printing a URL; stderr: ${stderr}`)));
      });
      const token = url.hash.replace('#token=', '');

      const page = await fetch(new URL('/', url));
      expect(page.status).toBe(200);
      const html = await page.text();
      const script = /<script[^>]+src="\.?(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(new URL(script!, url))).status).toBe(200);

      const call = (headers: Record<string, string>) =>
        fetch(new URL('/api/teams.list', url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{}',
        });
      expect((await call({})).status).toBe(401);
      const teams = await call({ authorization: `Bearer ${token}` });
      expect(teams.status).toBe(200);
      expect(await teams.json()).toMatchObject({
        ok: true,
        value: [expect.objectContaining({ label: 'Demo (emulator)' })],
      });
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/stopped/);
  });
});
