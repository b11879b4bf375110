// `messages` and the send log from the command line: `send` against the emulator records every send
// (sent, or failed with its error) in the data folder's send log; `messages` lists the contacts with
// unread counts and one thread from that log and the tunnel's stored deliveries, read-only; --follow
// prints messages as they are stored.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { EventLog, type StoredDelivery } from '../../src-main/core/tunnel';
import { SendLog } from '../../src-main/core/messages';
import { systemClock } from '../../src-main/core/ports';
import { runCli, runCliUntil } from '../helpers/cli';
import { DEMO_KEY } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

let emu: Emulator;
const env = { CHANNEL_API_KEY: DEMO_KEY };
const on = (agent: string) => ['--base-url', emu.baseUrl, '--agent', agent];
emulatorSuite('cc-cli-messages-', (s) => ({ emu } = s));

let data: string;
beforeEach(async () => {
  await emu.control.reset();
  data = await mkdtemp(join(tmpdir(), 'cc-cli-messages-data-'));
});
afterEach(async () => {
  await rm(data, { recursive: true, force: true });
});

let n = 0;
function delivery(
  agentId: string,
  from: string,
  text: string,
  at: number,
  over: Record<string, unknown> = {},
): StoredDelivery {
  const id = `wamid_cli_${++n}`;
  const body = {
    event: 'message.received',
    from,
    message: { id, type: 'text', text, fromMe: false, ...over },
    timestamp: new Date(at).toISOString(),
  };
  return {
    kind: 'delivery',
    id: `dlv_${n}`,
    agentId,
    receivedAt: at,
    method: 'POST',
    path: `/hooks/${agentId}`,
    headers: {},
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: { event: 'message.received', from, messageId: id, type: 'text' },
    forward: false,
  };
}

async function store(...ds: StoredDelivery[]): Promise<void> {
  const log = new EventLog({ dataDir: join(data, 'tunnel'), clock: systemClock });
  await log.open();
  for (const d of ds) await log.appendDelivery(d);
  await log.close();
}

describe('send records in the send log', () => {
  it("a sent and a failed send are both in the data folder's send log", async () => {
    const ok = await runCli(
      [
        'send',
        ...on('agent-connected'),
        '--to',
        '+15550102000',
        '--text',
        'hello from the CLI',
        '--data-dir',
        data,
        '--json',
      ],
      { env },
    );
    expect(ok.code).toBe(0);
    const failed = await runCli(
      [
        'send',
        ...on('agent-unlinked'),
        '--to',
        '+15550102000',
        '--text',
        'nobody home',
        '--data-dir',
        data,
        '--retries',
        '0',
      ],
      { env },
    );
    expect(failed.code).not.toBe(0);
    const records = await new SendLog(data).read();
    expect(records.map((r) => [r.agentId, r.via, r.text, r.status ?? null, r.error?.kind ?? null])).toEqual([
      ['agent-connected', 'cli', 'hello from the CLI', 'sent', null],
      ['agent-unlinked', 'cli', 'nobody home', null, 'needs-scan'],
    ]);
    expect(records[0]!.messageId).toBe((ok.json()[0] as { messageId: string }).messageId);
    // The thread says it in the Messages screen's words: "Not sent:" and what happened.
    const thread = await runCli(
      ['messages', '--data-dir', data, '--agent', 'agent-unlinked', '--with', '+15550102000'],
      { env },
    );
    expect(thread.stdout).toContain("→ nobody home — Not sent: The agent's number is not linked.");
  });

  it('a usage error sends nothing and records nothing', async () => {
    const r = await runCli(
      ['send', ...on('agent-connected'), '--to', 'not-a-number', '--text', 'x', '--data-dir', data],
      { env },
    );
    expect(r.code).toBe(2);
    await expect(readdir(join(data, 'messages'))).rejects.toThrow();
  });
});

describe('messages', () => {
  it('lists contacts with unread counts, newest first, and one thread with --with', async () => {
    const t = Date.now() - 60_000;
    await store(
      delivery('agent-connected', '15550101111', 'first question', t),
      delivery('agent-connected', '15550102222', 'other person', t + 1000),
      delivery('agent-connected', '15550101111', 'second question', t + 2000),
    );
    expect(
      (
        await runCli(
          ['send', ...on('agent-connected'), '--to', '+15550101111', '--text', 'our answer', '--data-dir', data],
          { env },
        )
      ).code,
    ).toBe(0);

    const list = await runCli(['messages', '--data-dir', data, '--json'], { env });
    expect(list.code).toBe(0);
    expect(list.json().map((c) => [c.contact, c.unread, c.count])).toEqual([
      ['+15550101111', 2, 3],
      ['+15550102222', 1, 1],
    ]);
    const human = await runCli(['messages', '--data-dir', data, '--agent', 'agent-connected'], { env });
    expect(human.stdout).toMatch(/\+15550101111 .* 2 unread .* You: our answer/);

    const thread = await runCli(
      ['messages', '--data-dir', data, '--agent', 'agent-connected', '--with', '+15550101111', '--json'],
      { env },
    );
    expect(thread.json().map((m) => [m.direction, m.text])).toEqual([
      ['in', 'first question'],
      ['in', 'second question'],
      ['out', 'our answer'],
    ]);
    const last = await runCli(
      ['messages', '--data-dir', data, '--agent', 'agent-connected', '--with', '+15550101111', '--limit', '1'],
      { env },
    );
    expect(last.stdout).toContain('the latest 1');
    expect(last.stdout).toContain('→ our answer');
    // Read-only: nothing written besides what was there.
    expect((await readdir(join(data, 'messages'))).sort()).toEqual(['sent.jsonl']);
  });

  it('duplicates appear once; other agents and refused deliveries are left out', async () => {
    const t = Date.now() - 60_000;
    const d = delivery('agent-connected', '15550101111', 'once', t);
    const dup = { ...d, id: 'dlv_dup' };
    const refused = {
      ...delivery('agent-connected', '15550103333', 'forged', t),
      verdict: { ok: false, reason: 'signature-mismatch' as const, scheme: 'v1' as const, steps: [] },
    };
    await store(d, dup, refused, delivery('agent-flaky', '15550104444', 'elsewhere', t));
    const r = await runCli(['messages', '--data-dir', data, '--agent', 'agent-connected', '--json'], { env });
    expect(r.json()).toMatchObject([{ contact: '+15550101111', count: 1 }]);
  });

  it('--with needs the agent; a bad number is a usage error', async () => {
    expect((await runCli(['messages', '--data-dir', data, '--with', '+15550101111'], { env })).code).toBe(2);
    expect((await runCli(['messages', '--data-dir', data, '--agent', 'a', '--with', 'nope'], { env })).code).toBe(2);
  });

  it('says where it looked when there is nothing', async () => {
    const r = await runCli(['messages', '--data-dir', data], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no messages in');
  });

  it('--follow prints each new message as it is stored (deliveries and sends)', async () => {
    const t = Date.now() - 60_000;
    await store(delivery('agent-connected', '15550101111', 'before', t));
    const run = await runCliUntil(
      [
        'messages',
        '--data-dir',
        data,
        '--agent',
        'agent-connected',
        '--with',
        '+15550101111',
        '--follow',
        '--json',
        '--poll-ms',
        '50',
      ],
      { env },
      {
        when: (lines) => lines.length >= 1,
        act: async () => {
          await store(delivery('agent-connected', '15550101111', 'stored later', Date.now()));
          await runCli(
            ['send', ...on('agent-connected'), '--to', '+15550101111', '--text', 'sent later', '--data-dir', data],
            { env },
          );
        },
        until: (lines) => lines.length >= 3,
      },
    );
    expect(run.errors).toEqual([]);
    expect(
      run
        .json()
        .map((m) => m.text)
        .sort(),
    ).toEqual(['before', 'sent later', 'stored later']);
    expect(await readFile(join(data, 'messages', 'sent.jsonl'), 'utf8')).toContain('sent later');
  });
});

describe('reply', () => {
  it('is send: the same flags, the same send log', async () => {
    const r = await runCli(
      ['reply', ...on('agent-connected'), '--to', '+15550101111', '--text', 'a reply', '--data-dir', data, '--json'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ status: 'sent' });
    expect((await new SendLog(data).read()).map((x) => x.text)).toEqual(['a reply']);
  });
});
