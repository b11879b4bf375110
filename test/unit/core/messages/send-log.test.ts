// The send log: one JSON line per send, private files, a torn last line skipped, rewrites that
// really remove the text; and sendAndRecord: the one path of a send, recording sent and failed
// sends (never an aborted one) without ever failing a send that went out.
import { appendFile, chmod, mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Aborted, ChannelNotConfigured, RateLimited } from '../../../../src-main/core/api/errors';
import { SendLog, sendAndRecord, type SendRecord } from '../../../../src-main/core/messages';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'send-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = {
  teamId: 't1',
  agentId: 'a1',
  to: '+15550102000',
  kind: 'text' as const,
  text: 'hello there',
  via: 'console' as const,
};

describe('SendLog', () => {
  it('appends one line per send in a private folder and file, and reads them back in order', async () => {
    const log = new SendLog(dir);
    await log.append({ ...base, at: 1, messageId: 'm1', status: 'sent' });
    await log.append({
      ...base,
      at: 2,
      kind: 'image',
      mediaUrl: 'https://example.com/a.png',
      error: { kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', message: 'not linked' },
    });
    const all = await log.read();
    expect(all.map((r) => [r.at, r.kind, r.messageId ?? null, r.error?.code ?? null])).toEqual([
      [1, 'text', 'm1', null],
      [2, 'image', null, 'CHANNEL_NOT_CONFIGURED'],
    ]);
    expect((await readFile(log.file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    if (process.platform !== 'win32') {
      expect((await stat(log.dir)).mode & 0o777).toBe(0o700);
      expect((await stat(log.file)).mode & 0o777).toBe(0o600);
    }
  });

  it('a file made earlier with a looser mode (0644) is 0600 once appended to', async () => {
    const log = new SendLog(dir);
    await mkdir(log.dir, { recursive: true, mode: 0o700 });
    await writeFile(log.file, '', { mode: 0o644 });
    await chmod(log.file, 0o644);
    await log.append({ ...base, at: 1 });
    expect((await stat(log.file)).mode & 0o777).toBe(0o600);
    expect(await log.read()).toHaveLength(1);
  });

  it('skips a torn last line and a line that does not fit, and reads the next whole line once it is there', async () => {
    const log = new SendLog(dir);
    await log.append({ ...base, at: 1 });
    await appendFile(log.file, '{"not":"a send"}\n');
    await appendFile(log.file, '{"id":"x","at":2,"teamId":"t1","agentId":"a1","to":"+1555');
    const first = await log.readFrom(0);
    expect(first.records.map((r) => r.at)).toEqual([1]);
    // The torn line is completed by nobody; a new append after it makes that line unreadable, not fatal.
    await appendFile(log.file, '\n');
    await log.append({ ...base, at: 3 });
    const next = await log.readFrom(first.next);
    expect(next.records.map((r) => r.at)).toEqual([3]);
  });

  it('a missing file is an empty log', async () => {
    expect(await new SendLog(path.join(dir, 'nowhere')).read()).toEqual([]);
  });

  it('removeWhere rewrites the file without the removed records (their text is gone from disk)', async () => {
    const log = new SendLog(dir);
    await log.append({ ...base, at: 1, text: 'keep me' });
    await log.append({ ...base, at: 2, to: '+15550109999', text: 'secret words' });
    expect(await log.removeWhere((r) => r.to === '+15550109999')).toBe(1);
    const raw = await readFile(log.file, 'utf8');
    expect(raw).not.toContain('secret words');
    expect(raw).toContain('keep me');
    if (process.platform !== 'win32') expect((await stat(log.file)).mode & 0o777).toBe(0o600);
    // A reader past the old end starts again from the start of the rewritten file.
    const again = await log.readFrom(10_000);
    expect(again.reset).toBe(true);
    expect(again.records.map((r) => r.text)).toEqual(['keep me']);
  });

  it('appends from two SendLog objects on one file keep every line whole', async () => {
    const a = new SendLog(dir);
    const b = new SendLog(dir);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append({ ...base, at: i, text: 'x'.repeat(5000) })),
    );
    const all = await a.read();
    expect(all).toHaveLength(40);
    expect(new Set(all.map((r) => r.at)).size).toBe(40);
  });
});

describe('sendAndRecord', () => {
  const rec = (log: SendLog, extra: Partial<Parameters<typeof sendAndRecord>[3]> = {}) => ({
    log,
    teamId: 't1',
    agentId: 'a1',
    via: 'cli' as const,
    now: () => 5_000,
    ...extra,
  });

  it('records a send that went out with the service messageId and status', async () => {
    const log = new SendLog(dir);
    const send = vi.fn(async () => ({ status: 'sent', messageId: 'wamid_1', to: '+15550102000' }));
    const recorded: SendRecord[] = [];
    const r = await sendAndRecord(
      { send },
      { to: '+15550102000', documentUrl: 'https://example.com/a.pdf', documentFilename: 'a.pdf', text: 'the invoice' },
      {},
      rec(log, { onRecorded: (x) => recorded.push(x) }),
    );
    expect(r.messageId).toBe('wamid_1');
    expect(send).toHaveBeenCalledWith('a1', expect.objectContaining({ to: '+15550102000' }), {});
    const [stored] = await log.read();
    expect(stored).toMatchObject({
      at: 5_000,
      teamId: 't1',
      agentId: 'a1',
      kind: 'document',
      text: 'the invoice',
      mediaUrl: 'https://example.com/a.pdf',
      filename: 'a.pdf',
      via: 'cli',
      messageId: 'wamid_1',
      status: 'sent',
    });
    expect(recorded).toEqual([stored]);
  });

  it("keeps the window's clientRef of a send, so the window finds its send in the log", async () => {
    const log = new SendLog(dir);
    const send = vi.fn(async () => ({ status: 'sent', messageId: 'wamid_2', to: '+15550102000' }));
    await sendAndRecord({ send }, { to: '+15550102000', text: 'hi' }, {}, rec(log, { clientRef: 'send-abc' }));
    await sendAndRecord({ send }, { to: '+15550102000', text: 'from the CLI' }, {}, rec(log));
    const [withRef, withoutRef] = await log.read();
    expect(withRef).toMatchObject({ clientRef: 'send-abc', text: 'hi' });
    expect(withoutRef && 'clientRef' in withoutRef).toBe(false);
  });

  it('records a failed send with its error (kind, code, the ceiling of a 429), and still throws it', async () => {
    const log = new SendLog(dir);
    const err = new RateLimited({ status: 429, code: 'RATE_LIMITED', message: 'slow down', rateLimit: { limit: 60 } });
    await expect(
      sendAndRecord({ send: async () => Promise.reject(err) }, { to: '+15550102000', text: 'hi' }, {}, rec(log)),
    ).rejects.toBe(err);
    const notLinked = new ChannelNotConfigured({
      status: 409,
      code: 'CHANNEL_NOT_CONFIGURED',
      message: 'not linked',
      rateLimit: {},
    });
    await expect(
      sendAndRecord({ send: async () => Promise.reject(notLinked) }, { to: '+15550102000', text: 'hi' }, {}, rec(log)),
    ).rejects.toBe(notLinked);
    const all = await log.read();
    expect(all.map((r) => r.error)).toEqual([
      { kind: 'rate-limited', code: 'RATE_LIMITED', message: 'slow down', limit: 60 },
      { kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', message: 'not linked' },
    ]);
    expect(all.every((r) => r.messageId === undefined)).toBe(true);
  });

  it('does not record a send the person stopped', async () => {
    const log = new SendLog(dir);
    const stopped = new Aborted({ status: 0, code: 'ABORTED', message: 'stopped', rateLimit: {} });
    await expect(
      sendAndRecord({ send: async () => Promise.reject(stopped) }, { to: '+15550102000', text: 'hi' }, {}, rec(log)),
    ).rejects.toBe(stopped);
    expect(await log.read()).toEqual([]);
  });

  it('a send log that cannot be written does not fail a send that went out', async () => {
    // A file where the folder should be: the append fails.
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'messages'), 'in the way');
    const log = new SendLog(dir);
    const errors: unknown[] = [];
    const r = await sendAndRecord(
      { send: async () => ({ status: 'sent', messageId: 'm', to: '+15550102000' }) },
      { to: '+15550102000', text: 'hi' },
      {},
      rec(log, { onLogError: (e) => errors.push(e) }),
    );
    expect(r.status).toBe('sent');
    expect(errors).toHaveLength(1);
  });
});
