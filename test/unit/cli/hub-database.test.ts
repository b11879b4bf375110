// The hub's database away (nothing listens at its address, a host that does not exist): `hub migrate` and `hub`
// exit 3, as for a service that cannot be reached, saying which host:port, and never the URL's password.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

/** A port on this machine that nothing listens on (taken from the system, then let go). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const PASSWORD = 'hunter2-sesame';

describe('the hub with its database away', () => {
  let dir: string;
  let url: string;
  let port: number;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-away-'));
    port = await closedPort();
    url = `postgres://admin:${PASSWORD}@127.0.0.1:${port}/hub`;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('hub migrate: exit 3, naming host:port, not the password', async () => {
    const r = await runCli(['hub', 'migrate', '--database', url], { env: {}, configDir: dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the hub's database at 127.0.0.1:${port} could not be reached (connection refused)`);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);

    const json = await runCli(['hub', 'migrate', '--json'], { env: { DATABASE_URL: url }, configDir: dir });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { exitCode: 3, code: 'DATABASE_UNREACHABLE' } });
    expect(json.stdout + json.stderr).not.toContain(PASSWORD);
  });

  it('hub: exit 3 before it listens, the same words', async () => {
    const r = await runCli(['hub', '--port', '0'], {
      env: { DATABASE_URL: url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') },
      configDir: dir,
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the hub's database at 127.0.0.1:${port} could not be reached`);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('a host that does not exist: exit 3, naming it', async () => {
    const r = await runCli(['hub', 'migrate', '--database', `postgres://admin:${PASSWORD}@no-such-host.invalid/hub`], {
      env: {},
      configDir: dir,
    });
    expect(r.code, r.stderr).toBe(3);
    // Without a name server the lookup fails instead; either way the host is named.
    expect(r.stderr).toMatch(
      /no-such-host\.invalid:5432 could not be reached \((no such host|the host name could not be looked up)\)/,
    );
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });
});
