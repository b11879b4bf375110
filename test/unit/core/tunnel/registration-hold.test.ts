// A delivery that fails verification while its agent's webhook registration is in flight: held
// until the registration ends, then verified with the secrets stored by then; answered 503 with
// Retry-After when the registration outlasts the hold. Without a registration in flight: 401 at once.
// A registration made by another process on the same data folder (its mark in registering/) holds
// them too, unless its process is gone or the mark is old. The secrets are read from their keeper
// once, then again only when told they changed, when a held delivery's registration ended, or in the
// background after a refused delivery (at most once every few seconds): never per delivery.
import { spawn } from 'node:child_process';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src-main/core/ports';
import { REGISTERING_DIR, RegistrationsInFlight, Tunnel } from '../../../../src-main/core/tunnel';
import { signDelivery } from '../../../../src-main/core/signature';
import { rawRequest, tempDir, waitFor } from './helpers';

const OLD = 'whsec_old_secret_0123456789abcdef';
const NEW = 'whsec_new_secret_0123456789abcdef';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(holdMs?: number) {
  const { dir, cleanup } = await tempDir('hold-');
  cleanups.push(cleanup);
  const secrets = { now: [OLD], reads: 0 };
  const t = new Tunnel({
    dataDir: dir,
    getSecrets: async () => {
      secrets.reads++;
      return secrets.now;
    },
    ...(holdMs !== undefined ? { registrationHoldMs: holdMs } : {}),
  });
  const { url } = await t.start();
  cleanups.push(() => t.stop());
  return { t, url: `${url}/hooks/a1`, secrets, dir };
}

/** A process of its own that lives until the test ends (its pid: a registration elsewhere). */
function otherProcess(): number {
  const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  cleanups.push(async () => void p.kill('SIGKILL'));
  return p.pid!;
}

/** A pid that no process has any more. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => p.once('exit', r));
  return p.pid!;
}

async function markOf(dir: string, agentId: string, pid: number): Promise<string> {
  await mkdir(join(dir, REGISTERING_DIR), { recursive: true });
  const file = join(dir, REGISTERING_DIR, `${agentId}@${pid}-1`);
  await writeFile(file, '');
  return file;
}

function post(url: string, secret: string, text: string) {
  const body = Buffer.from(
    JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id: `m-${text}`, type: 'text', text },
    }),
  );
  return rawRequest(url, {
    headers: { 'content-type': 'application/json', ...signDelivery(secret, body, Math.floor(Date.now() / 1000)) },
    body,
  });
}

describe('deliveries during a webhook registration', () => {
  it('signed with the new secret while the registration is in flight: held, then verified once the secret is stored', async () => {
    const { t, url, secrets } = await receiver();
    const end = t.registrations.begin('a1');
    const answer = post(url, NEW, 'early');
    // The first verification (with the old secret only) has run: the delivery is being held.
    await waitFor(() => secrets.reads === 1, 5_000, 'first verification');
    secrets.now = [NEW, OLD];
    end();
    const r = await answer;
    expect(r.status).toBe(200);
    const [item] = t.list({ limit: 10 });
    expect(item!.verdict).toMatchObject({ ok: true, reason: 'verified' });
    expect(t.get(item!.id)!.verdict.steps[0]).toMatch(/held while a webhook registration of a1 was under way/);
    expect(t.refused({ limit: 10 })).toEqual([]);
  });

  it('a registration that outlasts the hold: 503 with Retry-After, kept as a refusal that says why', async () => {
    const { t, url } = await receiver(50);
    const end = t.registrations.begin('a1');
    const r = await post(url, NEW, 'late');
    end();
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json).toMatchObject({ ok: false, reason: 'registration-in-flight' });
    const [refused] = t.refused({ limit: 10 });
    expect(refused).toMatchObject({ reason: 'registering', status: 503, agentId: 'a1' });
    expect(refused!.detail).toMatch(/still under way/);
  });

  it('no registration in flight: a delivery with an unknown secret is refused at once (401)', async () => {
    const { t, url } = await receiver();
    const r = await post(url, NEW, 'stranger');
    expect(r.status).toBe(401);
    expect(t.refused({ limit: 10 })[0]).toMatchObject({ reason: 'signature-mismatch', status: 401 });
  });

  it('a delivery that verifies with the old secret is not held by a registration in flight', async () => {
    const { t, url } = await receiver(60_000);
    const end = t.registrations.begin('a1');
    const r = await post(url, OLD, 'before');
    end();
    expect(r.status).toBe(200);
  });

  it('the secrets are read once for a run of deliveries; one stored here is read when the tunnel is told', async () => {
    const { t, url, secrets } = await receiver();
    for (let i = 0; i < 20; i++) expect((await post(url, OLD, `run-${i}`)).status).toBe(200);
    expect(secrets.reads).toBe(1);
    secrets.now = [NEW, OLD];
    await t.secretsChanged('a1');
    expect(secrets.reads).toBe(2);
    expect((await post(url, NEW, 'rotated')).status).toBe(200);
    expect(secrets.reads).toBe(2);
  });
});

describe('a secret stored by another process', () => {
  it('a delivery it signed is refused at once, never waiting for a read; the read runs in the background (at most once every 5 s) and the retry is taken', async () => {
    const { dir, cleanup } = await tempDir('hold-');
    cleanups.push(cleanup);
    const keeper = { now: [OLD], reads: 0 };
    // The system clock, which the test can move on.
    let ahead = 0;
    const clock = { ...systemClock, now: () => Date.now() + ahead };
    const t = new Tunnel({
      dataDir: dir,
      clock,
      getSecrets: async () => {
        keeper.reads++;
        return keeper.now;
      },
    });
    const { url } = await t.start();
    cleanups.push(() => t.stop());
    const hook = `${url}/hooks/a1`;
    // Deliveries arriving together while the secrets are first read share that read.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(hook, OLD, `together-${i}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(keeper.reads).toBe(1);
    keeper.now = [NEW, OLD];
    // Within 5 s of the last read, a refused delivery reads nothing.
    for (let i = 0; i < 5; i++) expect((await post(hook, NEW, 'rotated')).status).toBe(401);
    expect(keeper.reads).toBe(1);
    ahead += 5_000;
    expect((await post(hook, NEW, 'rotated')).status).toBe(401);
    await waitFor(() => keeper.reads === 2, 5_000, 'the read in the background');
    // The service's retry.
    expect((await post(hook, NEW, 'rotated')).status).toBe(200);
    expect(keeper.reads).toBe(2);
  });
});

describe('a registration in another process on the same data folder', () => {
  it('its mark holds the delivery until it is gone; then verified with the secrets stored by then', async () => {
    const { t, url, secrets, dir } = await receiver();
    const mark = await markOf(dir, 'a1', otherProcess());
    const answer = post(url, NEW, 'elsewhere');
    await waitFor(() => secrets.reads === 1, 5_000, 'first verification');
    secrets.now = [NEW, OLD];
    await rm(mark);
    const r = await answer;
    expect(r.status).toBe(200);
    const [item] = t.list({ limit: 10 });
    expect(t.get(item!.id)!.verdict.steps[0]).toMatch(/held while a webhook registration of a1 was under way/);
  });

  it('a mark that outlasts the hold: 503 with Retry-After', async () => {
    const { url, dir } = await receiver(100);
    await markOf(dir, 'a1', otherProcess());
    const r = await post(url, NEW, 'slow elsewhere');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
  });

  it("a mark left by a process that is gone, an old one, or another agent's: refused at once (401)", async () => {
    const { url, dir } = await receiver(60_000);
    await markOf(dir, 'a1', await deadPid());
    const old = await markOf(dir, 'a1', otherProcess());
    const past = new Date(Date.now() - 120_000);
    await utimes(old, past, past);
    await markOf(dir, 'a2', otherProcess());
    expect((await post(url, NEW, 'stale marks')).status).toBe(401);
  });

  it("a registry's own registration leaves a mark the other registries of the folder see, removed when it ends", async () => {
    const { dir } = await receiver();
    const here = new RegistrationsInFlight(join(dir, REGISTERING_DIR));
    const there = new RegistrationsInFlight(join(dir, REGISTERING_DIR));
    const end = here.begin('a1');
    expect(there.inFlight('a1')).toBe(true);
    expect(there.inFlight('a2')).toBe(false);
    end();
    expect(there.inFlight('a1')).toBe(false);
    expect(here.inFlight('a1')).toBe(false);
  });
});
