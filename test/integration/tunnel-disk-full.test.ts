// A full disk never loses an acknowledged delivery: `listen` with its data dir on a 1 MiB tmpfs
// takes ~30 KB deliveries until storage fails (503), the space is freed, three more are taken (200),
// the process is SIGKILLed and the log read again: every acknowledged delivery is there. The same
// holds for the app's tunnel (the companion behind Electron and `serve`).
// Mounting needs root (CI runs as root); elsewhere the test skips, saying why.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { implementContract } from '../../src-main/app/contract';
import { createCompanion } from '../../src-main/app/companion/companion';
import { createHandlers } from '../../src-main/app/handlers';
import { decodeSigningSecrets } from '../../src-main/core/teams/signing';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { signDelivery } from '../../src-main/core/signature';
import { EventLog } from '../../src-main/core/tunnel';
import { systemClock } from '../../src-main/core/ports';
import { DEMO_KEY, startTestEmulator } from '../helpers/emulator';
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
function delivery(secret: string): { id: string; body: Buffer; headers: Record<string, string> } {
  const id = `wamid_full_${++seq}`;
  const body = Buffer.from(
    JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id, type: 'text', text: 'x'.repeat(30_000), fromMe: false },
      timestamp: new Date().toISOString(),
    }),
  );
  return {
    id,
    body,
    headers: { 'content-type': 'application/json', ...signDelivery(secret, body, Math.floor(Date.now() / 1000)) },
  };
}

async function post(url: string, secret = SECRET): Promise<{ id: string; status: number }> {
  const d = delivery(secret);
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  return { id: d.id, status: res.status };
}

async function startListen(dataDir: string): Promise<{ s: Spawned; hook: string }> {
  const s = spawnCli(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', dataDir, '--json'], {
    HOOK_SECRET: SECRET,
  });
  const ready = await s.firstJsonLine(30_000);
  return { s, hook: (ready.hooks as Array<{ url: string }>)[0]!.url };
}

/** Each test starts on an empty 1 MiB file system. */
async function emptyMount(): Promise<void> {
  for (const name of await readdir(mnt)) await rm(join(mnt, name), { recursive: true, force: true });
  // 1 MiB again, whatever a test grew it to.
  const r = spawnSync('mount', ['-o', 'remount,size=1m', mnt], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`remount: ${r.stderr}`);
}

/** Posts until the first 503 (the ballast fills the rest), frees the ballast, posts three more: the acknowledged ids. */
async function fillAndFree(hook: string, ballast: string, secret = SECRET): Promise<string[]> {
  const acked: string[] = [];
  let refused = 0;
  for (let i = 0; i < 100 && refused === 0; i++) {
    const r = await post(hook, secret);
    if (r.status === 200) acked.push(r.id);
    else if (r.status === 503) refused++;
    else throw new Error(`unexpected ${r.status}`);
  }
  expect(refused).toBe(1);
  expect(acked.length).toBeGreaterThan(5);
  // Still failing: every answer is 503 until space comes back.
  expect((await post(hook, secret)).status).toBe(503);
  await rm(ballast);
  for (let i = 0; i < 3; i++) {
    const r = await post(hook, secret);
    expect(r.status).toBe(200);
    acked.push(r.id);
  }
  return acked;
}

describe('a full disk', () => {
  it('loses no acknowledged delivery: 503 while storage fails, 200 again once space is back, all there after SIGKILL', async (ctx) => {
    if (!mounted) ctx.skip(whyNot);
    await emptyMount();
    const ballast = join(mnt, 'ballast');
    await writeFile(ballast, Buffer.alloc(200 * 1024, 1));
    const dataDir = join(mnt, 'data');
    const { s, hook } = await startListen(dataDir);
    let acked: string[] = [];
    try {
      acked = await fillAndFree(hook, ballast);
    } finally {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    // Every acknowledged delivery is in the log, read as it is on the full disk.
    const log = new EventLog({ dataDir: join(dataDir, 'tunnel'), clock: systemClock, readOnly: true });
    await log.open();
    const inLog = new Set([...log.all()].map((d) => d.summary.messageId));
    await log.close();
    expect(acked.filter((id) => !inLog.has(id))).toEqual([]);
    // `deliveries list` starts a companion for the data folder (its files need a little room): with some
    // space again it lists every one of them.
    expect(spawnSync('mount', ['-o', 'remount,size=4m', mnt]).status).toBe(0);
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

describe('a disk that is full before listen starts', () => {
  it('is refused with what to do, and leaves no empty lock file behind', async (ctx) => {
    if (!mounted) ctx.skip(whyNot);
    await emptyMount();
    const dataDir = join(mnt, 'full');
    await mkdir(dataDir);
    // Fill every block: the write stops at the end of the space.
    await writeFile(join(mnt, 'ballast-full'), Buffer.alloc(2 * 1024 * 1024, 1)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOSPC') throw e;
    });
    const r = await runBin(['listen', '--secret-env', 'HOOK_SECRET', '--data-dir', dataDir], { HOOK_SECRET: SECRET });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot be written (the disk is full: free some space, or choose another data folder)');
    expect(r.stderr).not.toMatch(/ENOSPC: no space left on device, write$/m);
    const files = await readdir(dataDir, { recursive: true });
    expect(files.filter((f) => f.toString().endsWith('writer.lock'))).toEqual([]);
  }, 60_000);
});

describe('a full disk under the app', () => {
  it("the companion's tunnel answers 503 while storage fails and loses no acknowledged delivery", async (ctx) => {
    if (!mounted) ctx.skip(whyNot);
    await emptyMount();
    const sub = join(mnt, 'app');
    const emu = await startTestEmulator();
    const store = new MemorySecretStore();
    const config = await mkdtemp(join(tmpdir(), 'cc-diskfull-config-'));
    const companion = await createCompanion({
      configDir: config,
      dataDir: sub,
      secrets: store,
      poll: { intervalMs: 60_000 },
      tunnelPort: 0,
    });
    const contract = implementContract(companion);
    const h = createHandlers(contract.implementations);
    try {
      const team = await h['teams.add']({
        label: 'Emulated',
        baseUrl: emu.baseUrl,
        apiKey: DEMO_KEY,
        agents: [{ agentId: 'agent-connected' }],
      });
      if (!team.ok) throw new Error(team.error.message);
      const { url } = await companion.startTunnel();
      const hook = `${url}/hooks/agent-connected`;
      const reg = await h['webhook.register']({
        teamId: team.value.teamId,
        agentId: 'agent-connected',
        publicUrl: hook,
      });
      if (!reg.ok) throw new Error(reg.error.message);
      const secret = decodeSigningSecrets(
        Object.entries(store.snapshot()).find(([k]) => k.includes('signing-secret'))![1],
      )[0]!;
      const ballast = join(mnt, 'ballast-app');
      await writeFile(ballast, Buffer.alloc(200 * 1024, 1));
      const acked = await fillAndFree(hook, ballast, secret);
      contract.dispose();
      await companion.close();
      const log = new EventLog({ dataDir: join(sub, 'tunnel'), clock: systemClock, readOnly: true });
      await log.open();
      const listed = new Set([...log.all()].map((d) => d.summary.messageId));
      await log.close();
      expect(acked.filter((id) => !listed.has(id))).toEqual([]);
    } finally {
      await companion.close();
      await emu.close();
      await rm(config, { recursive: true, force: true });
    }
  }, 120_000);
});
