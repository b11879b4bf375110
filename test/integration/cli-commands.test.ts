// The CLI, in-process (main()), against the emulator on port 0.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { runCli } from '../helpers/cli';
import { DEMO_KEY, state } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import type { HttpSink } from '../helpers/http-sink';

let emu: Emulator;
let sink: HttpSink;
let dir: string;
const env = { CHANNEL_API_KEY: DEMO_KEY };
const on = (agent: string) => ['--base-url', emu.baseUrl, '--agent', agent];

emulatorSuite('cc-cli-', (s) => ({ emu, sink, dir } = s));
beforeEach(() => emu.control.reset());

describe('status', () => {
  it('connected agent: health word and fields; --json is one object', async () => {
    const r = await runCli(['status', ...on('agent-connected')], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^agent-connected: Connected \(\+15550100001\)/);
    const j = await runCli(['status', ...on('agent-unlinked'), '--json'], { env });
    expect(j.code).toBe(0);
    expect(j.json()).toEqual([
      expect.objectContaining({
        agentId: 'agent-unlinked',
        health: 'needs-scan',
        needsScan: true,
        linked: false,
        connected: false,
      }),
    ]);
  });

  it('unknown agent → exit 3; wrong key → exit 4; the key is never printed', async () => {
    const nf = await runCli(['status', ...on('agent-nope')], { env });
    expect(nf.code).toBe(3);
    expect(nf.stderr).toMatch(/unknown agent/);
    const bad = await runCli(['status', ...on('agent-connected')], { env: { CHANNEL_API_KEY: 'wrong-key-123456' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr + bad.stdout).not.toContain('wrong-key-123456');
  });
});

describe('send', () => {
  it('sends and prints "sent <id> to <to>"; --json has status sent and messageId', async () => {
    const r = await runCli(['send', ...on('agent-connected'), '--to', '+15550102000', '--text', 'hi'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sent msg_\w+ to \+15550102000\n$/);
    const j = await runCli(['send', ...on('agent-connected'), '--to', '15550102000', '--text', 'hi', '--json'], {
      env,
    });
    expect(j.code).toBe(0);
    const [res] = j.json();
    expect(res).toMatchObject({ status: 'sent', to: '+15550102000' });
    expect(res!.messageId).toMatch(/^msg_/);
    const s = await state(emu);
    expect(s.sentMessages.map((m) => m.messageId)).toContain(res!.messageId);
  });

  it('image and document sends carry their fields', async () => {
    const img = await runCli(
      [
        'send',
        ...on('agent-connected'),
        '--to',
        '+15550102000',
        '--image-url',
        'https://example.test/a.png',
        '--text',
        'cap',
        '--json',
      ],
      { env },
    );
    expect(img.json()[0]).toMatchObject({ status: 'sent', type: 'image' });
    const doc = await runCli(
      [
        'send',
        ...on('agent-connected'),
        '--to',
        '+15550102000',
        '--document-url',
        'https://example.test/a.pdf',
        '--filename',
        'a.pdf',
        '--json',
      ],
      { env },
    );
    expect(doc.json()[0]).toMatchObject({ status: 'sent', type: 'document' });
    const last = (await state(emu)).sentMessages.at(-1)!;
    expect(last).toMatchObject({ documentUrl: 'https://example.test/a.pdf', documentFilename: 'a.pdf' });
  });

  it('bad flags → exit 2 and the emulator saw no request at all', async () => {
    const before = (await state(emu)).counters.serviceRequests;
    for (const args of [
      ['--to', 'garbage', '--text', 'hi'],
      ['--to', '+15550102000'],
      ['--to', '+15550102000', '--text', 'hi', '--unknown-flag'],
    ]) {
      const r = await runCli(['send', ...on('agent-connected'), ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Usage: channel-companion send|see: channel-companion send --help/);
    }
    const noKey = await runCli(['send', ...on('agent-connected'), '--to', '+15550102000', '--text', 'hi'], { env: {} });
    expect(noKey.code).toBe(2);
    const s = await state(emu);
    expect(s.counters.serviceRequests).toBe(before);
    expect(s.sentMessages).toHaveLength(0);
  });

  it('409 not configured → exit 3 "needs a QR scan", tried once', async () => {
    const before = (await state(emu)).counters.serviceRequests;
    const r = await runCli(['send', ...on('agent-unlinked'), '--to', '+15550102000', '--text', 'hi'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('needs a QR scan');
    expect((await state(emu)).counters.serviceRequests).toBe(before + 1);
  });

  it('503 reconnecting → retries shown on stderr, then sent once the drop ends', async () => {
    await emu.control.drop('agent-connected', { seconds: 1 });
    const r = await runCli(['send', ...on('agent-connected'), '--to', '+15550102000', '--text', 'after the drop'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/reconnecting .*retry 1\/4/);
    expect(r.stdout).toMatch(/^sent msg_/);
  });

  it('503 for longer than the retries → exit 3', async () => {
    await emu.control.drop('agent-connected', { seconds: 60 });
    const r = await runCli(
      ['send', ...on('agent-connected'), '--to', '+15550102000', '--text', 'x', '--retries', '0'],
      { env },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/reconnecting/i);
  });
});

describe('check, settings, webhook, media, chat', () => {
  it('check: exists and jid', async () => {
    const yes = await runCli(['check', ...on('agent-connected'), '--phone', '+15550100002', '--json'], { env });
    expect(yes.json()).toEqual([{ phone: '15550100002', exists: true, jid: '15550100002@s.whatsapp.net' }]);
    const no = await runCli(['check', ...on('agent-connected'), '--phone', '+15559990000'], { env });
    expect(no.code).toBe(0);
    expect(no.stdout).toContain('not on WhatsApp');
  });

  it('settings: switches change and the reply shows all three', async () => {
    const r = await runCli(
      ['settings', ...on('agent-connected'), '--groups', 'on', '--delivery-receipts', 'on', '--json'],
      { env },
    );
    expect(r.json()).toEqual([{ groups: true, readReceipts: false, deliveryReceipts: true }]);
    const s = await state(emu);
    expect(s.agents.find((a) => a.agentId === 'agent-connected')!.settings).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: true,
    });
  });

  it('webhook set: the secret is saved to --secret-file and only hinted on stdout', async () => {
    const secretFile = join(dir, 'secret.txt');
    const r = await runCli(
      [
        'webhook',
        'set',
        ...on('agent-connected'),
        '--url',
        sink.url,
        '--secret-file',
        secretFile,
        '--data-dir',
        join(dir, 'data'),
        '--yes',
        '--json',
      ],
      { env },
    );
    expect(r.code).toBe(0);
    const [cfg] = r.json();
    expect(cfg).toMatchObject({ mode: 'passthrough', url: sink.url });
    const secret = (await readFile(secretFile, 'utf8')).trim();
    expect(secret.length).toBeGreaterThan(8);
    expect(r.stdout).not.toContain(secret);
    expect(cfg!.secretHint).toBe(`…${secret.slice(-4)}`);
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
  });

  it('media: bytes arrive, the key never reaches the media origin, progress on stderr', async () => {
    const { messageId } = emu.control.inbound('agent-connected', {
      from: '15550102000',
      type: 'image',
      caption: 'look',
    });
    const out = join(dir, 'photo.bin');
    const r = await runCli(['media', ...on('agent-connected'), '--message-id', messageId, '--out', out, '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    const [res] = r.json();
    expect(res).toMatchObject({ path: out });
    expect((await stat(out)).size).toBe(res!.bytes);
    expect(res!.bytes).toBeGreaterThan(0);
    expect(r.stderr).toContain('"progress"');
    const s = await state(emu);
    expect(s.mediaRequests).toBeGreaterThan(0);
    expect(s.mediaRequestsWithAuthorization).toBe(0);
  });

  it('chat: reply on stdout, conversation/actions/tokens on stderr', async () => {
    emu.control.setChatScript('agent-connected', {
      reply: 'Hello from the agent',
      actions: [{ name: 'lookup_order' }],
    });
    const r = await runCli(['chat', ...on('agent-connected'), '--message', 'hi', '--user-id', 'u1'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Hello from the agent\n');
    expect(r.stderr).toMatch(/conversation: \S+/);
    expect(r.stderr).toContain('actions: lookup_order');
    expect(r.stderr).toMatch(/tokens: \d+/);
  });

  it('chat --stream --json: one line per token, then done with the metadata', async () => {
    emu.control.setChatScript('agent-connected', { tokens: ['Hel', 'lo', ' there'], tokenDelayMs: 5 });
    const r = await runCli(['chat', ...on('agent-connected'), '--message', 'hi', '--stream', '--json'], { env });
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines.filter((l) => l.event === 'token').map((l) => l.token)).toEqual(['Hel', 'lo', ' there']);
    expect(lines.at(-1)).toMatchObject({ event: 'done', reply: 'Hello there' });
    expect(typeof lines.at(-1)!.conversationId).toBe('string');
  });

  it('chat --stream (human): tokens as they arrive; a mid-stream failure exits non-zero', async () => {
    emu.control.setChatScript('agent-connected', { tokens: ['a', 'b', 'c'], tokenDelayMs: 1 });
    const ok = await runCli(['chat', ...on('agent-connected'), '--message', 'hi', '--stream'], { env });
    expect(ok.stdout).toBe('abc\n');
    emu.control.setChatScript('agent-connected', { tokens: ['a', 'b', 'c'], tokenDelayMs: 1, failAfterTokens: 1 });
    const bad = await runCli(['chat', ...on('agent-connected'), '--message', 'hi', '--stream'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/error:/);
  });
});

describe('pair', () => {
  it('shows the QR (decoded text = the pairing token) and finishes when a phone scans it', async () => {
    let scanned = false;
    let shownText: string | null = null;
    let tokenAtScan: string | null = null;
    const qrFile = join(dir, 'qr.png');
    const r = await runCli(['pair', ...on('agent-unlinked'), '--json', '--qr-file', qrFile, '--timeout', '20'], {
      env,
      pairPollMs: 50,
      onStdout: (chunk) => {
        if (scanned || !chunk.includes('"event":"qr"')) return;
        scanned = true;
        shownText = (JSON.parse(chunk.trim().split('\n')[0]!) as { text: string }).text;
        void (async () => {
          tokenAtScan = (await state(emu)).agents.find((a) => a.agentId === 'agent-unlinked')!.pairingToken;
          await emu.control.scan('agent-unlinked', { phone: '15550107777' });
        })();
      },
    });
    expect(r.code).toBe(0);
    expect(shownText).not.toBeNull();
    expect(shownText).toBe(tokenAtScan);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'qr', rotation: 1 });
    expect(lines.at(-1)).toMatchObject({ status: 'connected', phone: '15550107777', alreadyConnected: false });
    expect(r.stderr).toContain('▀'); // the terminal QR goes to stderr in --json mode
    expect((await stat(qrFile)).size).toBeGreaterThan(100);
  });

  it('times out with exit 1; an already connected agent exits 0 at once', async () => {
    const t = await runCli(['pair', ...on('agent-unlinked'), '--timeout', '0.3'], { env, pairPollMs: 50 });
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/not connected after/);
    const c = await runCli(['pair', ...on('agent-connected')], { env });
    expect(c.code).toBe(0);
    expect(c.stdout).toContain('already linked');
  });

  it('Ctrl-C cancels the wait', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('SIGINT')), 300);
    const r = await runCli(['pair', ...on('agent-unlinked')], { env, pairPollMs: 50, signal: ctl.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/cancelled/);
  });
});
