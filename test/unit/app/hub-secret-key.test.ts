// The key that encrypts a hub's secrets at rest: 32 bytes from CHANNEL_HUB_SECRET_KEY (base64 or hex) or from
// a file (`hub --secret-key-file`: the same text, or the 32 raw bytes); none or a malformed one is refused in
// words that say how to make one and never repeat what was given.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubSecretKeyError, loadSecretKey } from '../../../src-main/app/hub/secrets';

describe('hub secret key', () => {
  const key = randomBytes(32);
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-key-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads 32 bytes from the environment as base64 or as 64 hex digits', async () => {
    expect(await loadSecretKey(undefined, { CHANNEL_HUB_SECRET_KEY: key.toString('base64') })).toEqual(key);
    expect(await loadSecretKey(undefined, { CHANNEL_HUB_SECRET_KEY: `${key.toString('hex')}\n` })).toEqual(key);
  });

  it('reads a file holding the text (as openssl writes it) or the raw bytes; the file wins over the environment', async () => {
    const text = path.join(dir, 'key.txt');
    await writeFile(text, `${key.toString('base64')}\n`);
    const raw = path.join(dir, 'key.bin');
    await writeFile(raw, key);
    const other = randomBytes(32).toString('base64');
    expect(await loadSecretKey(text, { CHANNEL_HUB_SECRET_KEY: other })).toEqual(key);
    expect(await loadSecretKey(raw, {})).toEqual(key);
  });

  it('without a key it says how to make one', async () => {
    const e = await loadSecretKey(undefined, {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HubSecretKeyError);
    expect((e as Error).message).toContain('CHANNEL_HUB_SECRET_KEY');
    expect((e as Error).message).toContain('openssl rand -base64 32');
    expect((e as Error).message).toContain('--secret-key-file');
  });

  it('a key of the wrong length, or a file that cannot be read, is refused without repeating it', async () => {
    const short = randomBytes(16).toString('base64');
    const e = await loadSecretKey(undefined, { CHANNEL_HUB_SECRET_KEY: short }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HubSecretKeyError);
    expect((e as Error).message).toContain('not a 32-byte key');
    expect((e as Error).message).not.toContain(short);
    const file = path.join(dir, 'bad.txt');
    await writeFile(file, 'hunter2-is-not-a-key');
    const f = await loadSecretKey(file, {}).catch((x: unknown) => x);
    expect((f as Error).message).toContain('not a 32-byte key');
    expect((f as Error).message).not.toContain('hunter2');
    const missing = await loadSecretKey(path.join(dir, 'none'), {}).catch((x: unknown) => x);
    expect((missing as Error).message).toContain('cannot be read (ENOENT)');
  });
});
