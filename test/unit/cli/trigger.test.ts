// `trigger` and `deliveries list|show|export|replay` over a temporary tunnel data folder, with a
// loopback sink standing in for the local app.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../../src-main/core/signature';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { runCli } from '../../helpers/cli';
import { startHttpSink, type HttpSink } from '../../helpers/http-sink';

const SECRET = 'whsec_trigger_0123456789abcdef';
let dir: string;
let sink: HttpSink;
let failing: HttpSink;
const env = { HOOK_SECRET: SECRET };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-trigger-'));
  sink = await startHttpSink();
  failing = await startHttpSink(500);
});
afterAll(async () => {
  await sink?.close();
  await failing?.close();
  await rm(dir, { recursive: true, force: true });
});

const data = () => ['--data-dir', join(dir, 'data')];

describe('trigger', () => {
  let deliveryId = '';

  it('signs, stores and forwards one message to the local app: exit 0, the app can verify it', async () => {
    const r = await runCli(
      [
        'trigger',
        '--agent',
        'a1',
        '--text',
        'hello there',
        '--from',
        '+15550100002',
        '--forward-to',
        sink.url,
        '--secret-env',
        'HOOK_SECRET',
        ...data(),
        '--json',
      ],
      { env, configDir: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [delivery, forward] = r.json();
    expect(delivery).toMatchObject({
      event: 'delivery',
      agentId: 'a1',
      ok: true,
      verdict: 'verified',
      type: 'text',
      from: '15550100002',
      simulated: true,
    });
    expect(forward).toMatchObject({ event: 'forward', ok: true, status: 200, url: sink.url, deliveryId: delivery!.id });
    deliveryId = delivery!.id as string;
    const req = sink.requests.at(-1)!;
    expect(JSON.parse(req.body.toString('utf8'))).toMatchObject({
      event: 'message.received',
      from: '15550100002',
      message: { type: 'text', text: 'hello there' },
    });
    const v = verifyDelivery({
      headers: req.headers as Record<string, string>,
      rawBody: req.body,
      secrets: [SECRET],
      now: Math.floor(Date.now() / 1000),
    });
    expect(v.ok).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('the app answering 500 → exit 1 with the status', async () => {
    const r = await runCli(
      [
        'trigger',
        '--agent',
        'a1',
        '--type',
        'image',
        '--forward-to',
        failing.url,
        '--secret-env',
        'HOOK_SECRET',
        ...data(),
      ],
      { env, configDir: dir },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/forward .* 500 in \d+ ms/);
  });

  const bad: Array<[string, string[], Record<string, string>]> = [
    ['no secret at all', ['trigger', '--agent', 'a1', '--forward-to', 'http://127.0.0.1:9/'], {}],
    ['secret env unset', ['trigger', '--agent', 'a1', '--secret-env', 'NOPE'], {}],
    ['both secret flags', ['trigger', '--agent', 'a1', '--secret-env', 'HOOK_SECRET', '--secret', 'x'], env],
    ['bad type', ['trigger', '--agent', 'a1', '--type', 'video', '--secret-env', 'HOOK_SECRET'], env],
    ['bad from', ['trigger', '--agent', 'a1', '--from', 'abc', '--secret-env', 'HOOK_SECRET'], env],
    ['missing --agent', ['trigger', '--secret-env', 'HOOK_SECRET'], env],
    ['bad forward URL', ['trigger', '--agent', 'a1', '--forward-to', 'file:///x', '--secret-env', 'HOOK_SECRET'], env],
    ['unknown team', ['trigger', '--agent', 'a1', '--team', 'nope'], {}],
  ];
  for (const [name, args, e] of bad) {
    it(`usage error: ${name} → exit 2, nothing stored or sent`, async () => {
      const before = sink.requests.length;
      const r = await runCli([...args, '--data-dir', join(dir, 'empty')], {
        env: e,
        configDir: dir,
        secretStore: new MemorySecretStore(),
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(sink.requests.length).toBe(before);
      const l = await runCli(['deliveries', 'list', '--json', '--data-dir', join(dir, 'empty')], { configDir: dir });
      expect(l.stdout).toBe('');
    });
  }

  describe('deliveries', () => {
    it('list: newest first, one JSON object per delivery; filters', async () => {
      const r = await runCli(['deliveries', 'list', ...data(), '--json'], { configDir: dir });
      expect(r.code).toBe(0);
      const items = r.json();
      expect(items).toHaveLength(2);
      expect(items[0]).toMatchObject({ type: 'image', ok: true, forwardState: 'pending', lastStatus: 500 });
      expect(items[1]).toMatchObject({
        id: deliveryId,
        verdict: 'verified',
        forwardState: 'delivered',
        lastStatus: 200,
        simulated: true,
      });
      const text = await runCli(['deliveries', 'list', ...data(), '--type', 'text', '--json'], { configDir: dir });
      expect(text.json().map((i) => i.id)).toEqual([deliveryId]);
      const lim = await runCli(
        [
          'deliveries',
          'list',
          ...data(),
          '--limit',
          '5',
          '--verdict',
          'verified',
          '--from',
          '+15550100002',
          '--agent',
          'a1',
          '--type',
          'text',
        ],
        { configDir: dir },
      );
      expect(lim.stdout.trim().split('\n')).toHaveLength(1);
      expect(lim.stdout).toContain(deliveryId);
    });

    it('show: headers, body, verdict and attempts', async () => {
      const r = await runCli(['deliveries', 'show', deliveryId, ...data(), '--json'], { configDir: dir });
      expect(r.code).toBe(0);
      const [d] = r.json();
      expect(d).toMatchObject({
        id: deliveryId,
        agentId: 'a1',
        verdict: { ok: true, reason: 'verified' },
        forwardState: 'delivered',
      });
      expect(JSON.parse(d!.body as string)).toMatchObject({ message: { text: 'hello there' } });
      expect(d!.attempts).toEqual([expect.objectContaining({ status: 200, ok: true })]);
      const h = await runCli(['deliveries', 'show', deliveryId, ...data()], { configDir: dir });
      expect(h.stdout).toContain('verdict: verified (v1)');
      expect(h.stdout).toContain('hello there');
    });

    it('export: a curl command with the exact body, or a fixture', async () => {
      const c = await runCli(['deliveries', 'export', deliveryId, ...data(), '--url', 'http://127.0.0.1:3999/hook'], {
        configDir: dir,
      });
      expect(c.code).toBe(0);
      expect(c.stdout).toMatch(/^curl -sS -X POST/);
      expect(c.stdout).toContain("'http://127.0.0.1:3999/hook'");
      expect(c.stdout).toContain('hello there');
      const fx = await runCli(['deliveries', 'export', deliveryId, ...data(), '--format', 'fixture', '--json'], {
        configDir: dir,
      });
      expect(fx.json()[0]).toMatchObject({
        format: 'fixture',
        fixture: { id: deliveryId, agentId: 'a1', verdict: { reason: 'verified' } },
      });
    });

    it('replay: as received and re-signed with an edited body; each logged as an attempt', async () => {
      const before = sink.requests.length;
      const asIs = await runCli(['deliveries', 'replay', deliveryId, '--forward-to', sink.url, ...data(), '--json'], {
        configDir: dir,
      });
      expect(asIs.code).toBe(0);
      expect(asIs.json()[0]).toMatchObject({ event: 'replay', replay: 'as-received', status: 200 });
      const body = join(dir, 'edited.json');
      await writeFile(body, '{"event":"message.received","edited":true}');
      const re = await runCli(
        [
          'deliveries',
          'replay',
          deliveryId,
          '--mode',
          're-signed',
          '--body-file',
          body,
          '--secret-env',
          'HOOK_SECRET',
          '--forward-to',
          sink.url,
          ...data(),
          '--json',
        ],
        { env, configDir: dir },
      );
      expect(re.code).toBe(0);
      expect(re.json()[0]).toMatchObject({ replay: 're-signed', status: 200 });
      expect(sink.requests.length).toBe(before + 2);
      const last = sink.requests.at(-1)!;
      expect(last.body.toString()).toBe('{"event":"message.received","edited":true}');
      expect(
        verifyDelivery({
          headers: last.headers as Record<string, string>,
          rawBody: last.body,
          secrets: [SECRET],
          now: Math.floor(Date.now() / 1000),
        }).ok,
      ).toBe(true);
      const show = await runCli(['deliveries', 'show', deliveryId, ...data(), '--json'], { configDir: dir });
      expect((show.json()[0]!.attempts as unknown[]).length).toBe(3);
    });

    const badD: Array<[string, string[], number]> = [
      ['show of an unknown id', ['deliveries', 'show', 'd_nope'], 1],
      ['show with a bad id', ['deliveries', 'show', '../etc'], 2],
      ['export with a bad format', ['deliveries', 'export', 'd_x', '--format', 'har'], 2],
      ['replay without --forward-to', ['deliveries', 'replay', 'd_x'], 2],
      [
        'replay body file without re-signed',
        ['deliveries', 'replay', 'd_x', '--forward-to', 'http://127.0.0.1:9/', '--body-file', 'x'],
        2,
      ],
      [
        're-signed replay without a secret',
        ['deliveries', 'replay', 'd_x', '--mode', 're-signed', '--forward-to', 'http://127.0.0.1:9/'],
        2,
      ],
      ['list with a bad limit', ['deliveries', 'list', '--limit', '0'], 2],
    ];
    for (const [name, args, code] of badD) {
      it(`${name} → exit ${code}, nothing sent`, async () => {
        const before = sink.requests.length;
        const r = await runCli([...args, ...data()], { configDir: dir });
        expect(r.code).toBe(code);
        expect(r.stdout).toBe('');
        expect(sink.requests.length).toBe(before);
      });
    }
  });
});
