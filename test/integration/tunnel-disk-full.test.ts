// A full disk never loses an acknowledged delivery: `listen` with its data dir on a 1 MiB tmpfs
// takes ~30 KB deliveries until storage fails (503), the space is freed, three more are taken (200),
// the process is SIGKILLed and the log read again: every acknowledged delivery is there.
// Mounting needs root (CI runs as root); elsewhere the test skips, saying why.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDelivery } from '../../src-main/core/signature';
import { parseJsonLines } from '../helpers/cli';
import { runBin, spawnCli, type Spawned } from '../helpers/spawn-cli';

const SECRET = 'whsec_disk_full_0123456789';
const CI = !!process.env.CI && process.env.CI !== 'false';

let mnt = '';
let mounted = false;
let whyNot = '';

function tryMount(dir: string): boolean {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status === 0) return true;
  whyNot = `mount -t tmpfs is not permitted here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()})`;
  return false;
}

beforeAll(async () => {
  mnt = await mkdtemp(join(tmpdir(), 'cc-diskfull-'));
  mounted = tryMount(mnt);
  if (!mounted && CI) throw new Error(`${whyNot}; CI must run this test (as root)`);
});
afterAll(async () => {
  if (mounted) spawnSync('umount', ['-l', mnt]);
  await rm(mnt, { recursive: true, force: true });
});

let seq = 0;
function delivery(): { id: string; body: Buffer; headers: Record<string, string> } {
  const id = `wamid_full_${++seq}`;
  const body = Buffer.from(JSON.stringify({ event: 'message.received', from: '15550100002', message: { id, type: 'text', text: 'x'.repeat(30_000), fromMe: false }, timestamp: new Date().toISOString() }));
  return { id, body, headers: { 'content-type': 'application/json', ...signDelivery(SECRET, body, Math.floor(Date.now() / 1000)) } };
}

async function post(url: string): Promise<{ id: string; status: number }> {
  const d = delivery();
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  return { id: d.id, status: res.status };
}

async function startListen(dataDir: string): Promise<{ s: Spawned; hook: string }> {
  const s = spawnCli(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', dataDir, '--json'], { HOOK_SECRET: SECRET });
  const ready = await s.firstJsonLine(30_000);
  return { s, hook: (ready.hooks as Array<{ url: string }>)[0]!.url };
}

describe('a full disk', () => {
  it('loses no acknowledged delivery: 503 while storage fails, 200 again once space is back, all there after SIGKILL', async (ctx) => {
    if (!mounted) ctx.skip(whyNot);
    const ballast = join(mnt, 'ballast');
    await writeFile(ballast, Buffer.alloc(200 * 1024, 1));
    const dataDir = join(mnt, 'data');
    const { s, hook } = await startListen(dataDir);
    const acked: string[] = [];
    let refused = 0;
    try {
      for (let i = 0; i < 100 && refused === 0; i++) {
        const r = await post(hook);
        if (r.status === 200) acked.push(r.id);
        else if (r.status === 503) refused++;
        else throw new Error(`unexpected ${r.status}`);
      }
      expect(refused).toBe(1);
      expect(acked.length).toBeGreaterThan(5);
      // Still failing: every answer is 503 until space comes back.
      expect((await post(hook)).status).toBe(503);
      await rm(ballast);
      for (let i = 0; i < 3; i++) {
        const r = await post(hook);
        expect(r.status).toBe(200);
        acked.push(r.id);
      }
    } finally {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    const list = await runBin(['deliveries', 'list', '--data-dir', dataDir, '--limit', '1000', '--json']);
    expect(list.code).toBe(0);
    const listed = new Set(parseJsonLines(list.stdout).map((l) => l.messageId as string));
    const lost = acked.filter((id) => !listed.has(id));
    expect(lost).toEqual([]);
    // A restarted listener takes deliveries again on the same data dir.
    const again = await startListen(dataDir);
    try {
      expect((await post(again.hook)).status).toBe(200);
    } finally {
      again.s.child.kill('SIGTERM');
      await again.s.exited;
    }
  }, 120_000);
});
