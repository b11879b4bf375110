// The tunnel end to end against the emulator. The emulator signs and delivers
// inbound messages to the tunnel's receiver; the tunnel forwards them to a local test app that
// checks the HMAC itself over the raw body.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startEmulator, type Emulator } from '../../src-main/emulator';
import { createServiceClient } from '../../src-main/core/api/client';
import { EventLog, Tunnel } from '../../src-main/core/tunnel';
import { registerWebhook } from '../../src-main/core/tunnel/register';
import { systemClock } from '../../src-main/core/ports';
import { tempDir, waitFor } from '../unit/core/tunnel/helpers';

const API_KEY = 'e2e-tunnel-key-0001';
const AGENTS = ['agent-a', 'agent-b'];
const TYPES = ['text', 'image', 'document'] as const;

async function emulator(backoff: number[]): Promise<Emulator> {
  return startEmulator({
    deliveryTimeoutMs: 2_000,
    deliveryBackoffMs: backoff,
    seed: {
      teams: [
        {
          id: 'team-e2e',
          apiKey: API_KEY,
          sendsPerMinute: 1000,
          agents: AGENTS.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555010000${i + 1}` })),
        },
      ],
    },
  });
}

/** The developer's app: its own HMAC check (v1, 300 s window) over the raw body. */
class LocalApp {
  server: Server | null = null;
  port = 0;
  /** message ids per agent, in arrival order (accepted only). */
  byAgent = new Map<string, string[]>();
  rejected = 0;
  /** 'up' answers; 'flaky' answers 503 on every other request. */
  mode: 'up' | 'flaky' = 'up';
  private n = 0;
  constructor(private readonly secrets: Map<string, string>) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  total(): number {
    return [...this.byAgent.values()].reduce((s, l) => s + l.length, 0);
  }
  unique(): number {
    return new Set([...this.byAgent.values()].flat()).size;
  }

  async start(): Promise<void> {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const agentId = (req.url ?? '').split('/').pop()!;
        const raw = Buffer.concat(chunks);
        if (this.mode === 'flaky' && this.n++ % 2 === 0) {
          res.writeHead(503).end();
          return;
        }
        if (!this.check(agentId, req.headers['x-service-signature-v1'], raw)) {
          this.rejected++;
          res.writeHead(401).end();
          return;
        }
        const id = (JSON.parse(raw.toString('utf8')) as { message: { id: string } }).message.id;
        const list = this.byAgent.get(agentId) ?? [];
        list.push(id);
        this.byAgent.set(agentId, list);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => s.listen(this.port, '127.0.0.1', () => r()));
    this.port = (s.address() as AddressInfo).port;
    this.server = s;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => (s.close(() => r()), s.closeAllConnections()));
  }

  private check(agentId: string, header: string | string[] | undefined, raw: Buffer): boolean {
    const secret = this.secrets.get(agentId);
    if (!secret || typeof header !== 'string') return false;
    const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
    const t = Number(parts.t);
    if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
    const want = Buffer.from(
      createHmac('sha256', secret)
        .update(Buffer.concat([Buffer.from(`${t}.`), raw]))
        .digest('hex'),
    );
    const got = Buffer.from(parts.v1 ?? '');
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

async function inject(
  emu: Emulator,
  count: number,
  onEach?: (i: number) => Promise<void> | void,
): Promise<Map<string, string[]>> {
  const sent = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const agentId = AGENTS[i % AGENTS.length]!;
    const type = TYPES[i % TYPES.length]!;
    const res = await request(`${emu.controlUrl}/agents/${agentId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: '15550109999',
        type,
        ...(type === 'text' ? { text: `message ${i}` } : { caption: `file ${i}` }),
      }),
    });
    const json = (await res.body.json()) as { messageId: string; deliveryId: string | null };
    expect(res.statusCode).toBe(200);
    expect(json.deliveryId).not.toBeNull();
    sent.set(agentId, [...(sent.get(agentId) ?? []), json.messageId]);
    await onEach?.(i);
  }
  return sent;
}

async function register(emu: Emulator, hookBase: string, secrets: Map<string, string>): Promise<void> {
  const client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: API_KEY });
  try {
    for (const agentId of AGENTS) {
      const r = await registerWebhook({
        client,
        agentId,
        publicUrl: `${hookBase}/hooks/${agentId}`,
        saveSecret: async (s) => void secrets.set(agentId, s),
      });
      expect(r.mode).toBe('passthrough');
    }
  } finally {
    await client.close();
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

describe('tunnel end to end against the emulator', () => {
  it('200 inbound messages reach the local app exactly once, in order per agent', async () => {
    const emu = await emulator([100, 200, 400, 800]);
    cleanups.push(() => emu.close());
    const secrets = new Map<string, string>();
    const app = new LocalApp(secrets);
    await app.start();
    cleanups.push(() => app.stop());
    const { dir, cleanup } = await tempDir('tunnel-e2e-');
    cleanups.push(cleanup);
    const tunnel = new Tunnel({
      dataDir: dir,
      getSecrets: async (a) => (secrets.has(a) ? [secrets.get(a)!] : []),
      forward: { perAgent: Object.fromEntries(AGENTS.map((a) => [a, `${app.url}/app/${a}`])) },
    });
    const { url } = await tunnel.start();
    cleanups.push(() => tunnel.stop());
    await register(emu, url, secrets);

    const sent = await inject(emu, 200);
    await waitFor(() => app.total() >= 200, 20_000, '200 deliveries at the local app');
    await emu.control.deliveriesIdle();
    await tunnel.idle();
    expect(app.total()).toBe(200);
    expect(app.rejected).toBe(0);
    for (const a of AGENTS) expect(app.byAgent.get(a)).toEqual(sent.get(a));
    const verdicts = tunnel.list({ limit: 1000 });
    expect(verdicts).toHaveLength(200);
    expect(verdicts.every((d) => d.verdict.reason === 'verified' && d.forwardState === 'delivered')).toBe(true);
    expect(emu.control.deliveries().every((d) => d.delivered)).toBe(true);
  }, 30_000);

  it('the local app is down for the first half and flaps after: still 200 delivered, 0 lost', async () => {
    const emu = await emulator([100, 200, 400, 800]);
    cleanups.push(() => emu.close());
    const secrets = new Map<string, string>();
    const app = new LocalApp(secrets);
    await app.start();
    const appUrl = app.url;
    await app.stop(); // down: connection refused
    cleanups.push(() => app.stop());
    const { dir, cleanup } = await tempDir('tunnel-e2e-');
    cleanups.push(cleanup);
    const tunnel = new Tunnel({
      dataDir: dir,
      getSecrets: async (a) => (secrets.has(a) ? [secrets.get(a)!] : []),
      forward: {
        perAgent: Object.fromEntries(AGENTS.map((a) => [a, `${appUrl}/app/${a}`])),
        backoff: { baseMs: 50, maxMs: 300, jitter: 0 },
      },
    });
    const { url } = await tunnel.start();
    cleanups.push(() => tunnel.stop());
    await register(emu, url, secrets);
    let sawDown = false;
    tunnel.on('status', (s) => (sawDown ||= s.localAppDownSince !== null && s.pending > 0));

    const sent = await inject(emu, 200, async (i) => {
      if (i === 99) {
        await emu.control.deliveriesIdle(); // the first half is stored by the tunnel while the app is down
        expect(app.total()).toBe(0);
        expect(tunnel.status().reduce((s, x) => s + x.pending, 0)).toBe(100);
        app.mode = 'flaky';
        await app.start();
      }
    });
    await waitFor(() => app.total() >= 200, 25_000, '200 deliveries at the local app');
    await tunnel.idle();
    expect(sawDown).toBe(true);
    expect(app.total()).toBe(200);
    for (const a of AGENTS) expect(app.byAgent.get(a)).toEqual(sent.get(a));
    expect(tunnel.status().every((s) => s.pending === 0 && s.localAppDownSince === null)).toBe(true);
    expect(emu.control.deliveries().every((d) => d.delivered)).toBe(true);
  }, 40_000);

  it('SIGKILL mid-run and a restart on the same dataDir and port: 0 lost, every acknowledged delivery in the log', async () => {
    // Long enough retries on the emulator's side to outlive the restart.
    const emu = await emulator([200, 400, 800, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]);
    cleanups.push(() => emu.close());
    const secrets = new Map<string, string>();
    const app = new LocalApp(secrets);
    await app.start();
    cleanups.push(() => app.stop());
    const { dir, cleanup } = await tempDir('tunnel-e2e-kill-');
    cleanups.push(cleanup);

    const here = fileURLToPath(new URL('.', import.meta.url));
    const children = new Set<ChildProcess>();
    cleanups.push(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    });
    const spawnTunnel = async (port: number) => {
      const child = spawn(process.execPath, ['--import', 'tsx', `${here}tunnel/child.ts`], {
        env: {
          ...process.env,
          TUNNEL_DATA_DIR: dir,
          TUNNEL_PORT: String(port),
          TUNNEL_FORWARD_BASE: `${app.url}/app`,
          TUNNEL_SECRETS: JSON.stringify(Object.fromEntries([...secrets].map(([a, s]) => [a, [s]]))),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.add(child);
      const line = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout! });
        rl.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`tunnel child exited early (${code})`)));
      });
      return { child, ...(JSON.parse(line) as { url: string; port: number }) };
    };

    // Register first (the secret comes back from the service), then start the child with it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await register(emu, `http://127.0.0.1:${port}`, secrets);
    let first = await spawnTunnel(port);
    expect(first.port).toBe(port);

    let killed = false;
    const sent = await inject(emu, 200, async (i) => {
      if (i === 80 && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
        await new Promise((r) => first.child.once('exit', r));
        await new Promise((r) => setTimeout(r, 150));
        first = await spawnTunnel(port);
      }
    });
    const all = new Set([...sent.values()].flat());
    await waitFor(
      () => all.size === new Set([...app.byAgent.values()].flat()).size,
      25_000,
      'every message at the local app',
    );
    await emu.control.deliveriesIdle();
    const got = new Set([...app.byAgent.values()].flat());
    expect([...all].filter((id) => !got.has(id))).toEqual([]); // 0 lost
    expect(app.rejected).toBe(0);

    // Stop the child cleanly, then read its log in-process.
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));
    const log = new EventLog({ dataDir: dir, clock: systemClock });
    await log.open();
    const inLog = new Set(log.list({ limit: 1000 }).map((d) => d.summary.messageId));
    await log.close();
    const acknowledged = emu.control
      .deliveries()
      .filter((d) => d.attempts.some((a) => a.status !== null && a.status >= 200 && a.status <= 299));
    expect(acknowledged.length).toBe(200);
    // The kill really interrupted deliveries: the emulator had to retry some.
    expect(emu.control.deliveries().some((d) => d.attempts.length > 1)).toBe(true);
    expect(acknowledged.filter((d) => !inLog.has(d.messageId)).map((d) => d.messageId)).toEqual([]);
    expect(emu.control.deliveries().every((d) => d.delivered)).toBe(true);
  }, 60_000);
});
