// The registration history: newest first per agent, credentials redacted, 0600, capped per agent; a
// file that is not a history is set aside (never deleted) with a clear message, and a new one starts.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistrationHistory } from '../../../../src-main/core/tunnel/registration-history';
import { tempDir } from './helpers';

/** Registrations kept per agent. */
const MAX_REGISTRATIONS_PER_AGENT = 50;

/** Where an agent's registrations are kept, in the data folder. */
const REGISTRATION_HISTORY_FILE = 'webhook-registrations.json';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function store(now = () => 1_000) {
  const { dir, cleanup } = await tempDir('history-');
  cleanups.push(cleanup);
  return { dir, h: RegistrationHistory.in(dir, now) };
}

describe('RegistrationHistory', () => {
  it("keeps each agent's registrations, newest first, in a 0600 file; no other agent's or team's", async () => {
    const { dir, h } = await store();
    await h.append({
      teamId: 't1',
      agentId: 'a1',
      url: 'https://one.example/hooks/a1',
      source: 'webhook set',
      target: 'other',
      at: 1,
    });
    await h.append({
      teamId: 't1',
      agentId: 'a2',
      url: 'https://x.example/hooks/a2',
      source: 'webhook set',
      target: 'other',
      at: 2,
    });
    await h.append({
      teamId: 't2',
      agentId: 'a1',
      url: 'https://y.example/hooks/a1',
      source: 'webhook set',
      target: 'other',
      at: 3,
    });
    expect(
      await h.append({
        teamId: 't1',
        agentId: 'a1',
        url: 'http://127.0.0.1:4555/hooks/a1',
        source: 'listen --register-url',
        target: 'receiver',
      }),
    ).toBeNull();
    const { entries, problem } = await h.list('t1', 'a1');
    expect(problem).toBeNull();
    expect(entries).toEqual([
      {
        teamId: 't1',
        agentId: 'a1',
        url: 'http://127.0.0.1:4555/hooks/a1',
        at: 1_000,
        source: 'listen --register-url',
        target: 'receiver',
      },
      {
        teamId: 't1',
        agentId: 'a1',
        url: 'https://one.example/hooks/a1',
        at: 1,
        source: 'webhook set',
        target: 'other',
      },
    ]);
    expect((await stat(join(dir, REGISTRATION_HISTORY_FILE))).mode & 0o777).toBe(0o600);
    expect((await h.list(null, 'a1')).entries).toEqual([]);
  });

  it('never keeps the credentials of a URL', async () => {
    const { dir, h } = await store();
    await h.append({
      teamId: 't1',
      agentId: 'a1',
      url: 'https://user:hunter2@app.example/hooks/a1',
      source: 'webhook set',
      target: 'other',
    });
    expect((await h.list('t1', 'a1')).entries[0]!.url).toBe('https://***@app.example/hooks/a1');
    expect(await readFile(join(dir, REGISTRATION_HISTORY_FILE), 'utf8')).not.toContain('hunter2');
  });

  it('never keeps query values or token-like path segments; the agent id of a hook URL stays', async () => {
    const { dir, h } = await store();
    const agent = 'agent-sales-eu-west-1';
    await h.append({
      teamId: 't1',
      agentId: agent,
      url: `https://user:pw@app.example/in/tok_5f1c9a0e7b3d2c4a/hooks/${agent}?token=SECRET&v=2#frag`,
      source: 'webhook set',
      target: 'other',
    });
    expect((await h.list('t1', agent)).entries[0]!.url).toBe(
      `https://***@app.example/in/…/hooks/${agent}?token=…&v=…#…`,
    );
    const text = await readFile(join(dir, REGISTRATION_HISTORY_FILE), 'utf8');
    for (const secret of ['pw', 'SECRET', 'tok_5f1c', 'frag']) expect(text).not.toContain(secret);
  });

  it('an entry an older version kept with its query is read redacted, and written back so at the next change', async () => {
    const { dir, h } = await store();
    const file = join(dir, REGISTRATION_HISTORY_FILE);
    const old = { teamId: 't1', agentId: 'a1', at: 1, source: 'webhook set', target: 'other' };
    await writeFile(
      file,
      JSON.stringify({ version: 1, registrations: [{ ...old, url: 'https://app.example/in?token=SECRET' }] }),
    );
    expect((await h.list('t1', 'a1')).entries[0]!.url).toBe('https://app.example/in?token=…');
    await h.append({
      teamId: 't1',
      agentId: 'a1',
      url: 'https://two.example/in',
      source: 'webhook set',
      target: 'other',
    });
    expect(await readFile(file, 'utf8')).not.toContain('SECRET');
  });

  it(`keeps the last ${MAX_REGISTRATIONS_PER_AGENT} registrations of an agent`, async () => {
    const { h } = await store();
    for (let i = 0; i < MAX_REGISTRATIONS_PER_AGENT + 3; i++)
      await h.append({
        teamId: 't1',
        agentId: 'a1',
        url: `https://x.example/${i}`,
        source: 'webhook set',
        target: 'other',
        at: i,
      });
    const { entries } = await h.list('t1', 'a1');
    expect(entries).toHaveLength(MAX_REGISTRATIONS_PER_AGENT);
    expect(entries[0]!.url).toBe(`https://x.example/${MAX_REGISTRATIONS_PER_AGENT + 2}`);
    expect(entries.at(-1)!.url).toBe('https://x.example/3');
  });

  for (const [name, text, why] of [
    ['not JSON', '{"version":1,"registrations":[', /not valid JSON/],
    [
      'another shape',
      '{"version":1,"registrations":[{"agentId":"a1"}]}',
      /not a registration history \(registrations\.0\.teamId/,
    ],
  ] as const) {
    it(`a file that is ${name}: set aside with a clear message, a new history started, nothing thrown`, async () => {
      const { dir, h } = await store(() => 42);
      await writeFile(join(dir, REGISTRATION_HISTORY_FILE), text);
      const read = await h.list('t1', 'a1');
      expect(read.entries).toEqual([]);
      expect(read.problem).toMatch(why);
      expect(read.problem).toContain(`set aside as ${REGISTRATION_HISTORY_FILE}.unreadable-42`);
      expect(await readFile(join(dir, `${REGISTRATION_HISTORY_FILE}.unreadable-42`), 'utf8')).toBe(text);
      expect(
        await h.append({
          teamId: 't1',
          agentId: 'a1',
          url: 'https://x.example/h',
          source: 'webhook set',
          target: 'other',
        }),
      ).toBeNull();
      expect((await h.list('t1', 'a1')).entries).toHaveLength(1);
      expect((await readdir(dir)).sort()).toEqual([
        REGISTRATION_HISTORY_FILE,
        `${REGISTRATION_HISTORY_FILE}.unreadable-42`,
      ]);
    });
  }
});
