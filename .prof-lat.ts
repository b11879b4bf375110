import { mkdtempSync } from 'node:fs';
import { Agent, request } from 'undici';
import { signDelivery } from './src-main/core/signature';
import { spawnChild } from './test/bench/monitor/spawn';
const SECRET = 's3cret';
const agents = Number(process.argv[2] ?? 1);
const app = spawnChild('../tunnel/app-child.ts', {});
const appUrl = (await app.waitFor('ready', 30000)).url as string;
const tun = spawnChild('../tunnel/tunnel-child.ts', { target: appUrl, dataDir: mkdtempSync('/tmp/tc-prof-data-'), secret: SECRET });
const tunUrl = (await tun.waitFor('ready', 30000)).url as string;
const prx = spawnChild('../tunnel/proxy-child.ts', { target: appUrl });
const prxUrl = (await prx.waitFor('ready', 30000)).url as string;
async function drive(mode: string, N: number) {
  const client = new Agent({ connections: 16 });
  const now = Math.floor(Date.now() / 1000);
  const lat: number[] = []; let n = 0; const t0 = performance.now();
  const worker = async () => { while (n < N) { const i = n++; const body = Buffer.from(JSON.stringify({ event: 'message.received', from: '15550100002', message: { id: `w_${mode}_${i}_${t0}`, type: 'text', text: `benchmark message ${i} `.repeat(4), fromMe: false }, timestamp: new Date().toISOString() }));
    const s = performance.now();
    const res = await request(mode === 'tunnel' ? `${tunUrl}/hooks/agent-${i % agents}` : `${prxUrl}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...signDelivery(SECRET, body, now) }, body, dispatcher: client }); await res.body.dump(); lat.push(performance.now() - s); } };
  await Promise.all(Array.from({ length: 16 }, worker));
  const el = performance.now() - t0;
  lat.sort((a, b) => a - b);
  console.log(mode, 'acks/s', Math.round(N / el * 1000), 'ack p50', lat[N >> 1].toFixed(2), 'p99', lat[Math.floor(N * 0.99)].toFixed(2));
  await client.close();
}
for (let r = 0; r < 3; r++) { await drive('proxy', 3000); await drive('tunnel', 3000); }
await Promise.all([app.kill(), tun.kill(), prx.kill()]);
