// Junk cannot evict history: 10,000 unsigned posts and 60 unsigned 5 MiB posts, interleaved with
// genuine deliveries, leave every verified delivery listed and the data folder small (far under
// 300 MiB). The junk comes from many sources (as through a tunnel program: X-Forwarded-For), each
// within the per-source budget, and the budget shared by a relay's sources is raised for this test,
// so all of it is read, refused and offered to the refused store, which stays bounded (the worst
// case for the disk; with the default budget most of it would be answered 429 unread).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { signDelivery } from '../../src-main/core/signature';
import { Tunnel } from '../../src-main/core/tunnel';
import { tempDir } from '../unit/core/tunnel/helpers';

const SECRET = 'whsec_flood_0123456789';
const MiB = 1024 * 1024;
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function du(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size;
  return total;
}

describe('a flood of unsigned posts', () => {
  it('10,000 unsigned + 60 unsigned 5 MiB posts: every verified delivery listed, the data folder far under 300 MiB', async () => {
    const t = await tempDir('cc-flood-');
    cleanups.push(t.cleanup);
    // The budget is raised so that every post is read: a source's to 1,000, a relay's share to 10,000.
    const tunnel = new Tunnel({
      dataDir: t.dir,
      getSecrets: async () => [SECRET],
      refusalRate: { burst: 1_000, perSec: 100 },
    });
    const { url } = await tunnel.start();
    const client = new Agent({ connections: 16 });
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const genuine: string[] = [];
    const bigBody = Buffer.alloc(5 * MiB, 0x7b);
    const source = (n: number) => `10.${Math.floor(n / 250)}.${n % 250}.1`;
    let bigs = 0;
    let made = 0;
    try {
      const jobs: Array<() => Promise<void>> = [];
      for (let i = 0; i < 10_000; i++) {
        // 2,000 sources, 5 posts each: within the budgets, so every one is read and refused.
        jobs.push(async () => {
          const res = await request(`${url}/hooks/agent-${i % 3}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': source(Math.floor(i / 5)) },
            body: `{"junk":${i},"pad":"${'x'.repeat(200)}"}`,
            dispatcher: client,
          });
          await res.body.dump();
          count(res.statusCode);
        });
        if (i % 50 === 0) {
          const n = made++;
          jobs.push(async () => {
            const id = `wamid_genuine_${n}`;
            const body = JSON.stringify({
              event: 'message.received',
              from: '15550100002',
              message: { id, type: 'text', text: `genuine ${n}` },
            });
            const res = await request(`${url}/hooks/agent-${n % 3}`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                ...signDelivery(SECRET, body, Math.floor(Date.now() / 1000)),
              },
              body,
              dispatcher: client,
            });
            await res.body.dump();
            expect(res.statusCode).toBe(200);
            genuine.push(id);
          });
        }
        if (i % 166 === 0 && bigs < 60) {
          const from = `203.0.113.${bigs++}`;
          jobs.push(async () => {
            const res = await request(`${url}/hooks/agent-0`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
              body: bigBody,
              dispatcher: client,
            });
            await res.body.dump();
            count(res.statusCode);
          });
        }
      }
      expect(bigs).toBe(60);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < jobs.length) await jobs[next++]!();
        }),
      );
    } finally {
      await client.close();
    }
    const listed = new Set(tunnel.list({ limit: 1000 }).map((d) => d.summary.messageId));
    await tunnel.stop();
    expect(genuine.length).toBe(200);
    for (const id of genuine) expect(listed.has(id)).toBe(true);
    expect(listed.size).toBe(genuine.length);
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(10_060);
    expect(statuses.get(401)).toBeGreaterThan(9_000);
    const size = await du(t.dir);
    expect(size).toBeLessThan(300 * MiB);
    // In fact: the refused store's bound (a few MB), whatever the flood.
    expect(size).toBeLessThan(20 * MiB);
    expect(tunnel.refused({ limit: 1000 })).toHaveLength(1000);
    console.log(
      `flood: ${genuine.length} verified listed of ${genuine.length}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; data folder ${(size / MiB).toFixed(2)} MiB`,
    );
  }, 180_000);
});
