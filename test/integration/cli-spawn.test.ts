// The real binary: `node bin/channel-companion.mjs emulator --json --port 0`, then `send` from a
// second process against it. Kept to a few spawns (each one loads tsx).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, spawnCli, type Spawned } from '../helpers/spawn-cli';

let emulator: Spawned;
let ready: {
  event: string;
  baseUrl: string;
  controlUrl: string;
  apiKey: string;
  agents: Array<{ agentId: string; state: string }>;
};

async function sentCount(): Promise<number> {
  const res = await fetch(`${ready.controlUrl}/state`);
  const s = (await res.json()) as { sentMessages: unknown[]; counters: { serviceRequests: number } };
  return s.sentMessages.length;
}

beforeAll(async () => {
  emulator = spawnCli(['emulator', '--json', '--port', '0']);
  ready = (await emulator.firstJsonLine()) as typeof ready;
}, 30_000);
afterAll(async () => {
  if (emulator && emulator.child.exitCode === null) {
    emulator.child.kill('SIGKILL');
    await emulator.exited;
  }
});

describe('channel-companion as a process', () => {
  it('emulator --json: the first stdout line is the ready event', () => {
    expect(ready).toMatchObject({ event: 'ready' });
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.controlUrl).toBe(`${ready.baseUrl}/_emulator`);
    expect(typeof ready.apiKey).toBe('string');
    expect(ready.agents.map((a) => a.agentId)).toContain('agent-connected');
  });

  it('send --json with the key in the environment → "status":"sent" and a messageId', async () => {
    const r = await runBin(
      [
        'send',
        '--base-url',
        ready.baseUrl,
        '--agent',
        'agent-connected',
        '--to',
        '+15550102000',
        '--text',
        'hi',
        '--json',
      ],
      {
        CHANNEL_API_KEY: ready.apiKey,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"status":"sent"');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ status: 'sent', messageId: expect.stringMatching(/\S+/) });
    expect(r.stdout + r.stderr).not.toContain(ready.apiKey);
  }, 30_000);

  it('bad flags → exit 2, usage on stderr, and the emulator saw no send', async () => {
    const before = await sentCount();
    const r = await runBin(
      ['send', '--base-url', ready.baseUrl, '--agent', 'agent-connected', '--to', 'nope', '--text', 'hi', '--json'],
      {
        CHANNEL_API_KEY: ready.apiKey,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // --json and no terminal: the error as one JSON line (the whole usage is for a person at a terminal).
    expect(r.stderr).toContain('"code":"USAGE"');
    expect(await sentCount()).toBe(before);
  }, 30_000);

  it('SIGTERM stops the emulator cleanly (exit 0, a closed event)', async () => {
    emulator.child.kill('SIGTERM');
    const { code } = await emulator.exited;
    expect(code).toBe(0);
    expect(emulator.stdout().trim().split('\n').at(-1)).toBe('{"event":"closed"}');
    await expect(fetch(`${ready.baseUrl}/_emulator/state`)).rejects.toThrow();
  }, 30_000);
});
