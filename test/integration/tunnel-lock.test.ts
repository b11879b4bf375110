// One writer per tunnel data folder, across processes: a second `listen` is refused with a message
// naming the first; readers work meanwhile; a lock left by a killed process is taken over, and when
// several processes find the same stale lock exactly one of them gets it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signDelivery } from '../../src-main/core/signature';
import { ensurePrivateDir } from '../../src-main/core/tunnel/private-files';
import { parseJsonLines } from '../helpers/cli';
import { runBin, spawnCli } from '../helpers/spawn-cli';
import { tempDir } from '../unit/core/tunnel/helpers';

const SECRET = 'whsec_lock_test_0123456789';
const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const c of cleanups) await c();
});

async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => p.once('exit', r));
  return p.pid!;
}

describe('one writer per data folder', () => {
  it('a second listen is refused naming the first; deliveries list reads meanwhile; after a SIGKILL the lock is taken over', async () => {
    const t = await tempDir('cc-lock-');
    cleanups.push(t.cleanup);
    const env = { HOOK_SECRET: SECRET };
    const first = spawnCli(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', t.dir, '--json'], env);
    children.add(first.child);
    const ready = await first.firstJsonLine(30_000);
    const hook = (ready.hooks as Array<{ url: string }>)[0]!.url;
    const body = Buffer.from(
      JSON.stringify({
        event: 'message.received',
        from: '1555',
        message: { id: 'wamid_lock_1', type: 'text', text: 'hi' },
      }),
    );
    const res = await fetch(hook, {
      method: 'POST',
      headers: signDelivery(SECRET, body, Math.floor(Date.now() / 1000)),
      body,
    });
    expect(res.status).toBe(200);

    const second = await runBin(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', t.dir, '--json'], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`in use by another writer (process ${first.child.pid}`);
    expect(second.stdout).toBe('');

    const list = await runBin(['deliveries', 'list', '--data-dir', t.dir, '--json']);
    expect(list.code).toBe(0);
    expect(parseJsonLines(list.stdout).map((l) => l.messageId)).toEqual(['wamid_lock_1']);

    first.child.kill('SIGKILL');
    await first.exited;
    // --data-dir D keeps the tunnel's data in D/tunnel: the killed writer's lock is still there.
    const lock = JSON.parse(await readFile(join(t.dir, 'tunnel', 'writer.lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(first.child.pid);

    const third = spawnCli(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', t.dir, '--json'], env);
    children.add(third.child);
    expect(await third.firstJsonLine(30_000)).toMatchObject({ event: 'ready' });
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
  }, 90_000);

  it('several processes finding the same stale lock: exactly one takes it over', async () => {
    const t = await tempDir('cc-lock-race-');
    cleanups.push(t.cleanup);
    const dir = join(t.dir, 'tunnel');
    await ensurePrivateDir(dir);
    await writeFile(
      join(dir, 'writer.lock'),
      JSON.stringify({ pid: await deadPid(), host: (await import('node:os')).hostname(), since: 1 }),
    );
    const script = fileURLToPath(new URL('./tunnel/lock-child.ts', import.meta.url));
    const racers = Array.from({ length: 4 }, () => {
      const c = spawn(process.execPath, ['--import', 'tsx', script, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.add(c);
      const out: Array<Record<string, unknown>> = [];
      const lines = createInterface({ input: c.stdout! });
      const waiters: Array<() => void> = [];
      lines.on('line', (l) => {
        out.push(JSON.parse(l) as Record<string, unknown>);
        for (const w of waiters.splice(0)) w();
      });
      const until = (n: number) =>
        new Promise<void>((r) => (out.length >= n ? r() : waiters.push(() => out.length >= n && r())));
      return { c, out, until };
    });
    await Promise.all(racers.map((r) => r.until(1)));
    for (const r of racers) r.c.stdin!.write('go\n');
    await Promise.all(racers.map((r) => r.until(2)));
    const got = racers.filter((r) => r.out[1]!.got === true);
    expect(got).toHaveLength(1);
    for (const r of racers.filter((x) => x !== got[0])) expect(r.out[1]!.error).toContain(`process ${got[0]!.c.pid}`);
    expect((JSON.parse(await readFile(join(dir, 'writer.lock'), 'utf8')) as { pid: number }).pid).toBe(got[0]!.c.pid);
    for (const r of racers) r.c.stdin!.end();
    await Promise.all(
      racers.map((r) => new Promise((res) => (r.c.exitCode !== null ? res(null) : r.c.once('exit', res)))),
    );
  }, 60_000);
});
