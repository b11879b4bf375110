// `serve` keeps its address across restarts: the port and access token are kept in
// <config>/browser-host.json (mode 0600) and reused, so a tab opened before a restart is answered
// after it; --new-token makes a new token (the old one is refused); --token-env still decides the
// token without changing the kept one; a corrupt file is said, replaced, and a new token made; a
// kept port now taken falls back to a free one with a note, a taken --port fails naming the holder.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli';

interface Ready {
  url: string;
  port: number;
  origin: string;
}

describe('serve across restarts', () => {
  let dir: string;
  let rendererDir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-serve-restart-'));
    rendererDir = path.join(dir, 'renderer');
    await mkdir(rendererDir);
    await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>test renderer</title>');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const tokenOf = (ready: Ready) => new URL(ready.url).hash.replace('#token=', '');
  const ping = (origin: string, token: string) =>
    fetch(`${origin}/api/app.ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    }).then((r) => r.status);

  /** Starts serve, waits for its ready line, runs `during` while it runs, then stops it. */
  async function serveOnce(
    configDir: string,
    extra: string[] = [],
    env: Record<string, string> = {},
    during?: (ready: Ready) => Promise<void>,
  ): Promise<{ run: CliRun; ready: Ready | null }> {
    const stop = new AbortController();
    let checks: Promise<void> | null = null;
    let ready: Ready | null = null;
    const run = await runCli(['serve', '--json', '--renderer-dir', rendererDir, '--config-dir', configDir, ...extra], {
      env,
      signal: stop.signal,
      onStdout: (_chunk, all) => {
        if (checks || !all.includes('\n')) return;
        ready = JSON.parse(all.split('\n')[0]!) as Ready;
        checks = (during ? during(ready) : Promise.resolve()).finally(() => stop.abort());
      },
    });
    await checks;
    return { run, ready };
  }

  it('same port and token after a restart (the old tab is answered); --new-token refuses the old one; the file is 0600', async () => {
    const config = path.join(dir, 'same');
    const first = await serveOnce(config, ['--port', '0']);
    expect(first.run.code).toBe(0);
    const a = first.ready!;
    const file = path.join(config, 'browser-host.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ port: a.port, token: tokenOf(a) });

    let oldTabStatus = 0;
    const second = await serveOnce(config, [], {}, async (b) => {
      oldTabStatus = await ping(b.origin, tokenOf(a));
    });
    expect(second.run.code).toBe(0);
    expect(second.ready!.port).toBe(a.port);
    expect(tokenOf(second.ready!)).toBe(tokenOf(a));
    expect(oldTabStatus).toBe(200);

    const statuses: number[] = [];
    const rotated = await serveOnce(config, ['--new-token'], {}, async (c) => {
      statuses.push(await ping(c.origin, tokenOf(a)), await ping(c.origin, tokenOf(c)));
    });
    expect(rotated.run.code).toBe(0);
    expect(rotated.ready!.port).toBe(a.port);
    expect(tokenOf(rotated.ready!)).not.toBe(tokenOf(a));
    expect(statuses).toEqual([401, 200]);
    // The new token is the one kept.
    const again = await serveOnce(config);
    expect(tokenOf(again.ready!)).toBe(tokenOf(rotated.ready!));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('--token-env decides the token and leaves the kept one as it was; --new-token with it is refused', async () => {
    const config = path.join(dir, 'env');
    const kept = tokenOf((await serveOnce(config, ['--port', '0'])).ready!);
    const given = 'Env_token-0123456789abcdefghijklmnopqr';
    const withEnv = await serveOnce(config, ['--token-env', 'CC_TEST_TOKEN'], { CC_TEST_TOKEN: given });
    expect(tokenOf(withEnv.ready!)).toBe(given);
    expect(JSON.parse(await readFile(path.join(config, 'browser-host.json'), 'utf8')).token).toBe(kept);
    const both = await runCli(
      ['serve', '--new-token', '--token-env', 'CC_TEST_TOKEN', '--renderer-dir', rendererDir, '--config-dir', config],
      { env: { CC_TEST_TOKEN: given } },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--new-token makes a token, --token-env takes it from the environment');
  });

  it('a corrupt file: a clear note, a new token, and the file replaced', async () => {
    const config = path.join(dir, 'corrupt');
    await mkdir(config, { recursive: true });
    const file = path.join(config, 'browser-host.json');
    await writeFile(file, '{"port": 8, "token": "sh', { mode: 0o644 });
    const r = await serveOnce(config, ['--port', '0']);
    expect(r.run.code).toBe(0);
    expect(r.run.stderr).toContain(
      `the browser host's saved address ${file} is not valid: a new access token is made and the file replaced`,
    );
    const saved = JSON.parse(await readFile(file, 'utf8')) as { port: number; token: string };
    expect(saved).toEqual({ port: r.ready!.port, token: tokenOf(r.ready!) });
    expect(saved.token).toMatch(/^[\w-]{32,}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('the kept port taken: another port with a note naming the holder; a taken --port fails naming it', async () => {
    const config = path.join(dir, 'taken');
    const first = (await serveOnce(config, ['--port', '0'])).ready!;
    const holder: ChildProcess = spawn(
      process.execPath,
      ['-e', `require('http').createServer().listen(${first.port}, '127.0.0.1', () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.once('data', () => resolve());
        holder.once('exit', () => reject(new Error('the port holder exited')));
      });
      const owner = process.platform === 'linux' ? `another program (node, process ${holder.pid})` : 'another program';
      const moved = await serveOnce(config);
      expect(moved.run.code).toBe(0);
      expect(moved.ready!.port).not.toBe(first.port);
      expect(moved.run.stderr).toContain(
        `port ${first.port}, where the browser host listened last time, is taken by ${owner}: listening on ${moved.ready!.port} instead`,
      );
      expect(tokenOf(moved.ready!)).toBe(tokenOf(first));

      const explicit = await runCli([
        'serve',
        '--port',
        String(first.port),
        '--renderer-dir',
        rendererDir,
        '--config-dir',
        config,
      ]);
      expect(explicit.code).not.toBe(0);
      expect(explicit.stderr).toContain(
        `could not listen on 127.0.0.1:${first.port}: the port is taken by ${owner}; give another --port`,
      );
    } finally {
      holder.kill('SIGTERM');
    }
  });
});
