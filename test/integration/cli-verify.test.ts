// `channel-companion verify` on real emulator deliveries: a webhook registered to a local sink,
// inbound messages injected, raw body + headers captured and fed back to the CLI.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import type { Emulator } from '../../src-main/emulator';
import { runCli } from '../helpers/cli';
import { DEMO_KEY, startTestEmulator, waitFor } from '../helpers/emulator';
import { startHttpSink, type CapturedRequest, type HttpSink } from '../helpers/http-sink';

let emu: Emulator;
let sink: HttpSink;
let dir: string;
let secret: string;
let delivery: CapturedRequest;
const env = () => ({ HOOK_SECRET: secret });

function sigHeaders(req: CapturedRequest, override: Record<string, string> = {}): string[] {
  const pick = ['x-service-signature', 'x-service-signature-v1', 'content-type'];
  const lines = req.rawHeaders
    .filter(([k]) => pick.includes(k.toLowerCase()) && !(k.toLowerCase() in override))
    .map(([k, v]) => `${k}: ${v}`);
  for (const [k, v] of Object.entries(override)) lines.push(`${k}: ${v}`);
  return lines.flatMap((l) => ['--header', l]);
}

function v1Timestamp(req: CapturedRequest): number {
  const m = /t=(\d+)/.exec(String(req.headers['x-service-signature-v1']));
  return Number(m![1]);
}

async function bodyFile(name: string, bytes: Buffer): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, bytes);
  return p;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  sink = await startHttpSink();
  dir = await mkdtemp(join(tmpdir(), 'cc-verify-int-'));
  const client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: DEMO_KEY });
  secret = (await client.setWebhook('agent-connected', sink.url)).secret;
  await client.close();
  emu.control.inbound('agent-connected', { from: '15550102000', type: 'text', text: 'héllo — ünïcode ✓' });
  delivery = await waitFor(() => sink.requests[0]);
});
afterAll(async () => {
  await emu?.close();
  await sink?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('verify against emulator deliveries', () => {
  it('the delivery as received verifies (exit 0, "verified")', async () => {
    const f = await bodyFile('ok.json', delivery.body);
    const r = await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f], {
      env: env(),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('Verified (verified)');
    expect(r.stdout).not.toContain(secret);
  });

  it('the body changed by one byte → signature-mismatch, exit 1', async () => {
    const changed = Buffer.from(delivery.body);
    changed[changed.length - 2] = changed[changed.length - 2]! ^ 0x01;
    const f = await bodyFile('changed.json', changed);
    const r = await runCli(
      ['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f, '--json'],
      { env: env() },
    );
    expect(r.code).toBe(1);
    expect(r.json()[0]).toMatchObject({ ok: false, reason: 'signature-mismatch' });
  });

  it('a re-serialised body (same JSON, other whitespace) → signature-mismatch', async () => {
    const f = await bodyFile(
      'reserialised.json',
      Buffer.from(JSON.stringify(JSON.parse(delivery.body.toString('utf8')), null, 2)),
    );
    const r = await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f], {
      env: env(),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('signature-mismatch');
  });

  it('301 s after its timestamp → stale-timestamp, exit 1 (300 s is still fine)', async () => {
    const f = await bodyFile('stale.json', delivery.body);
    const t = v1Timestamp(delivery);
    const stale = await runCli(
      ['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f, '--now', String(t + 301)],
      { env: env() },
    );
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('stale-timestamp');
    const edge = await runCli(
      ['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f, '--now', String(t + 300)],
      { env: env() },
    );
    expect(edge.code).toBe(0);
  });

  it('a v1 signature of a different length → signature-mismatch (no crash), exit 1', async () => {
    const f = await bodyFile('len.json', delivery.body);
    const t = v1Timestamp(delivery);
    const sig = /v1=([0-9a-f]+)/.exec(String(delivery.headers['x-service-signature-v1']))![1]!;
    for (const bad of [sig.slice(0, -2), `${sig}ab`]) {
      const r = await runCli(
        [
          'verify',
          '--secret-env',
          'HOOK_SECRET',
          ...sigHeaders(delivery, { 'x-service-signature-v1': `t=${t},v1=${bad}` }),
          '--body-file',
          f,
          '--now',
          String(t),
        ],
        { env: env() },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('signature-mismatch');
    }
  });

  it('the wrong secret → signature-mismatch; a retried delivery (fresh timestamp) also verifies', async () => {
    const f = await bodyFile('wrong.json', delivery.body);
    const r = await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(delivery), '--body-file', f], {
      env: { HOOK_SECRET: `${secret}x` },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('signature-mismatch');

    emu.control.inbound('agent-connected', { from: '15550102000', type: 'image', caption: 'a photo' });
    const second = await waitFor(() => sink.requests[1]);
    const f2 = await bodyFile('second.json', second.body);
    const ok = await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...sigHeaders(second), '--body-file', f2], {
      env: env(),
    });
    expect(ok.code).toBe(0);
  });
});
