// `channel-companion serve`, in-process: the ready line, the host answering with the demo team and
// no key, a clean stop on interrupt, a clear error when the renderer is not built, bad flags.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';

/** The demo team's API key. */
const DEMO_API_KEY = 'demo-key-0123456789abcdef';

describe('serve', () => {
  let dir: string;
  let rendererDir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-serve-'));
    rendererDir = path.join(dir, 'renderer');
    await mkdir(rendererDir);
    await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>test renderer</title>');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('--emulator: prints the ready line once, serves the app with the demo team, and stops on interrupt', async () => {
    const stop = new AbortController();
    let checks: Promise<void> | null = null;
    const seen: { page?: string; teams?: string; noToken?: number; metrics?: string } = {};
    const run = runCli(
      [
        'serve',
        '--emulator',
        '--json',
        '--port',
        '0',
        '--metrics-port',
        '0',
        '--tunnel-port',
        '0',
        '--renderer-dir',
        rendererDir,
        '--config-dir',
        path.join(dir, 'config'),
        '--data-dir',
        path.join(dir, 'data'),
      ],
      {
        signal: stop.signal,
        onStdout: (_chunk, all) => {
          if (checks || !all.includes('\n')) return;
          const ready = JSON.parse(all.split('\n')[0]!) as { url: string; origin: string; metricsUrl: string };
          const token = new URL(ready.url).hash.replace('#token=', '');
          checks = (async () => {
            seen.page = await (await fetch(`${ready.origin}/`)).text();
            const headers = { 'content-type': 'application/json' };
            seen.noToken = (
              await fetch(`${ready.origin}/api/teams.list`, { method: 'POST', headers, body: '{}' })
            ).status;
            seen.teams = await (
              await fetch(`${ready.origin}/api/teams.list`, {
                method: 'POST',
                headers: { ...headers, authorization: `Bearer ${token}` },
                body: '{}',
              })
            ).text();
            seen.metrics = await (await fetch(ready.metricsUrl)).text();
          })().finally(() => stop.abort());
        },
      },
    );
    const r = await run;
    await checks;
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines.filter((l) => l.event === 'ready')).toHaveLength(1);
    const ready = lines[0] as {
      event: string;
      url: string;
      port: number;
      emulator: { baseUrl: string; controlUrl: string; apiKey: string };
      demoTeam: { label: string; agentIds: string[] };
    };
    expect(ready.event).toBe('ready');
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{20,}$/);
    expect(ready.port).toBeGreaterThan(0);
    expect(ready.emulator.controlUrl).toBe(`${ready.emulator.baseUrl}/_emulator`);
    expect(ready.emulator.apiKey).toBe(DEMO_API_KEY);
    expect(ready.demoTeam.label).toBe('Demo (emulator)');
    expect(ready.demoTeam.agentIds).toHaveLength(3);
    expect(lines[lines.length - 1]).toEqual({ event: 'closed' });

    expect(seen.page).toContain('test renderer');
    expect(seen.noToken).toBe(401);
    expect(seen.teams).toContain('Demo (emulator)');
    expect(seen.teams).not.toContain(DEMO_API_KEY);
    expect((lines[0] as { metricsUrl: string }).metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(seen.metrics).toContain('# TYPE channel_companion_agent_health gauge');
    expect(seen.metrics).not.toContain(DEMO_API_KEY);
  });

  it('says to build first when the renderer is not built', async () => {
    const empty = path.join(dir, 'empty');
    await mkdir(empty, { recursive: true });
    const r = await runCli(['serve', '--renderer-dir', empty, '--config-dir', path.join(dir, 'config2')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/run npm run build/);
  });

  it('refuses bad flags before starting anything', async () => {
    const r = await runCli([
      'serve',
      '--port',
      'eighty',
      '--renderer-dir',
      rendererDir,
      '--config-dir',
      path.join(dir, 'config3'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port/);
    const m = await runCli([
      'serve',
      '--metrics-host',
      '0.0.0.0',
      '--renderer-dir',
      rendererDir,
      '--config-dir',
      path.join(dir, 'config3'),
    ]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/--metrics-host: give --metrics-port as well/);
  });

  it('--token-env: the link carries the given token, so a restarted serve keeps it valid', async () => {
    const token = 'Fixed_token-0123456789abcdefghijklmnop';
    const stop = new AbortController();
    let status: Promise<number> | null = null;
    const r = await runCli(
      [
        'serve',
        '--json',
        '--port',
        '0',
        '--token-env',
        'CC_TEST_TOKEN',
        '--renderer-dir',
        rendererDir,
        '--config-dir',
        path.join(dir, 'config4'),
      ],
      {
        env: { CC_TEST_TOKEN: token },
        signal: stop.signal,
        onStdout: (_chunk, all) => {
          if (status || !all.includes('\n')) return;
          const ready = JSON.parse(all.split('\n')[0]!) as { origin: string };
          const init = {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: '{}',
          };
          status = fetch(`${ready.origin}/api/app.ping`, init)
            .then((res) => res.status)
            .finally(() => stop.abort());
        },
      },
    );
    expect(r.code).toBe(0);
    expect((r.json()[0] as { url: string }).url).toMatch(new RegExp(`/#token=${token}$`));
    expect(await status).toBe(200);
  });

  it('--token-env refuses a missing or weak token, and starts nothing', async () => {
    const args = [
      'serve',
      '--token-env',
      'CC_TEST_TOKEN',
      '--renderer-dir',
      rendererDir,
      '--config-dir',
      path.join(dir, 'config5'),
    ];
    const missing = await runCli(args, { env: {} });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/CC_TEST_TOKEN is not set/);
    const weak = await runCli(args, { env: { CC_TEST_TOKEN: 'short' } });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/32 to 512 letters/);
    expect(weak.stdout).toBe('');
  });
});
