// `channel-companion emulator` in-process: ready line, --seed, human how-to, clean stop on signal.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-emu-cmd-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Starts the command, calls during() once the first stdout line is out, then interrupts it. */
async function runUntilReady(args: string[], during: (firstLine: string) => Promise<void>): Promise<CliRun> {
  const ctl = new AbortController();
  let started = false;
  let failure: unknown = null;
  const run = await runCli(args, {
    signal: ctl.signal,
    onStdout: (_chunk, all) => {
      if (started || !all.includes('\n')) return;
      started = true;
      during(all.split('\n')[0]!)
        .catch((e: unknown) => (failure = e))
        .finally(() => ctl.abort(new Error('SIGINT')));
    },
  });
  if (failure) throw failure;
  return run;
}

describe('emulator command', () => {
  it('--json: first line is ready with a working baseUrl; stops cleanly with a closed event', async () => {
    let statusCode = 0;
    const r = await runUntilReady(['emulator', '--json', '--port', '0'], async (line) => {
      const ready = JSON.parse(line) as { baseUrl: string; apiKey: string; agents: Array<{ agentId: string }> };
      const res = await fetch(`${ready.baseUrl}/api/v1/agents/${ready.agents[0]!.agentId}/whatsapp/session`, {
        headers: { authorization: `Bearer ${ready.apiKey}` },
      });
      statusCode = res.status;
      await res.arrayBuffer();
    });
    expect(r.code).toBe(0);
    expect(statusCode).toBe(200);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'ready', controlUrl: expect.stringMatching(/\/_emulator$/) });
    expect(lines.at(-1)).toEqual({ event: 'closed' });
  });

  it('--seed FILE: teams and agents from the file', async () => {
    const seedFile = join(dir, 'seed.json');
    await writeFile(
      seedFile,
      JSON.stringify({
        teams: [
          {
            id: 'acme',
            apiKey: 'acme-key-123456',
            agents: [{ agentId: 'bot-1', state: 'connected', phone: '15550101111' }],
          },
        ],
      }),
    );
    const r = await runUntilReady(['emulator', '--json', '--seed', seedFile], async () => {});
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({
      apiKey: 'acme-key-123456',
      agents: [{ agentId: 'bot-1', teamId: 'acme', state: 'connected' }],
    });
  });

  it('an invalid or missing seed file → exit 2 with the reason, nothing started', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ teams: [{ id: 'x', apiKey: 'short', agents: [] }] }));
    const r = await runCli(['emulator', '--seed', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/apiKey/);
    expect(r.stdout).toBe('');
    const missing = await runCli(['emulator', '--seed', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read seed file/);
  });

  it('human mode prints a short how-to with the URL, key and an example command', async () => {
    const r = await runUntilReady(['emulator'], async () => {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/running at http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toContain('export CHANNEL_API_KEY=');
    expect(r.stdout).toMatch(/channel-companion status --base-url http:\/\/127\.0\.0\.1:\d+ --agent agent-connected/);
  });

  it('--dialect NAMES: every team answers in those shapes; the ready line says which; an unknown name is a usage error', async () => {
    let body = '';
    const r = await runUntilReady(['emulator', '--json', '--dialect', 'flat-errors,openai-stream'], async (line) => {
      const ready = JSON.parse(line) as { baseUrl: string; apiKey: string };
      const res = await fetch(`${ready.baseUrl}/api/v1/agents/agent-unlinked/whatsapp/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+15550102000', text: 'x' }),
      });
      body = await res.text();
    });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ event: 'ready', dialect: ['flat-errors', 'openai-stream'] });
    expect(JSON.parse(body)).toEqual({ code: 'CHANNEL_NOT_CONFIGURED', message: expect.any(String) });
    const bad = await runCli(['emulator', '--dialect', 'openai-stream,klingon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--dialect: unknown dialect "klingon" \(known: default, /);
  });
});
