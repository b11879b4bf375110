// --allow-insecure-http and a saved team's setting: the key goes over plain http:// to another
// machine only when the person said so; loopback needs nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { runCli } from '../../helpers/cli';
import { CONNECTED, fakeClientFactory } from './fake-client';

const KEY = 'lab-key-0123456789abcdef';
const REMOTE = 'http://lab.example:8787';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-insecure-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the key over plain http', () => {
  it('a service command refuses a remote http:// base URL (exit 2, no client made) and goes with --allow-insecure-http', async () => {
    const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
    const refused = await runCli(['status', '--base-url', REMOTE, '--agent', 'a1'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: The API key would travel unencrypted to lab\.example:8787 .*https:\/\/.* with --allow-insecure-http/m,
    );
    expect(log.created).toEqual([]);
    const allowed = await runCli(['status', '--base-url', REMOTE, '--agent', 'a1', '--allow-insecure-http', '--json'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(log.created).toEqual([expect.objectContaining({ baseUrl: REMOTE, allowInsecureHttp: true })]);
  });

  it('loopback http and https need no flag', async () => {
    const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
    for (const baseUrl of ['http://127.0.0.1:8787', 'http://localhost:1', 'https://api.example.com']) {
      const r = await runCli(['status', '--base-url', baseUrl, '--agent', 'a1', '--json'], {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
      });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(log.created.map((o) => o.allowInsecureHttp)).toEqual([undefined, undefined, undefined]);
  });

  it('team add refuses plain http to another host without --allow-insecure-http, before anything is asked', async () => {
    const store = new MemorySecretStore();
    const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
    const opts = { env: { CHANNEL_API_KEY: KEY }, createClient: factory, secretStore: store, configDir: dir };
    const refused = await runCli(['team', 'add', '--label', 'Lab', '--base-url', REMOTE, '--agent', 'a1'], opts);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-insecure-http');
    expect(log.created).toEqual([]);
    expect(store.snapshot()).toEqual({});
  });
});
