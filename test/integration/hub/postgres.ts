// A Postgres of the test's own: Debian's `postgresql` binaries, a cluster in a temp folder on a free port,
// started before the tests and removed after them. Postgres refuses to run as root: as root the cluster
// belongs to the `postgres` user (runuser); as anyone else, to that user.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Stops the server, keeping its files (the database becomes unreachable). */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port with the same data. */
  resume(): Promise<void>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function asOwner(cmd: string, args: string[]): Promise<void> {
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', cmd, ...args]);
  else await run(cmd, args);
}

interface PostgresOptions {
  /** Flush every commit to disk before it is answered, as a production server does (default off: tests need speed). */
  durable?: boolean;
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<TestPostgres> {
  if (!existsSync(path.join(BIN, 'initdb')))
    throw new Error(`Postgres is not installed (no ${BIN}/initdb): apt-get install -y postgresql`);
  const dir = await mkdtemp(path.join(tmpdir(), 'cc-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await asOwner(path.join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  let port = 0;
  const start = (): Promise<void> =>
    asOwner(path.join(BIN, 'pg_ctl'), [
      '-D',
      data,
      '-w',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${opts.durable === true ? '' : ' -c fsync=off'}`,
      'start',
    ]);
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (e) {
      // Someone took the free port between the look and the start: another one.
      if (attempt >= 2) throw e;
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    halt: () => asOwner(path.join(BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: start,
    async stop() {
      await asOwner(path.join(BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
