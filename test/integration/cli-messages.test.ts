// `messages` and the send log from the command line: `send` against the emulator records every send
// (sent, or failed with its error) in the data folder's send log; `messages` asks the data folder's companion
// (started in-process here, as none runs) for the contacts with unread counts and one thread, kept from the
// tunnel's stored deliveries and the send log; what others wrote is printed with control characters escaped.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { EventLog, type StoredDelivery } from '../../src-main/core/tunnel';
import { SendLog } from '../../src-main/core/messages';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { hostCompanion } from '../../src-main/app/companion/hosted';
import { systemClock } from '../../src-main/core/ports';
import { runCli } from '../helpers/cli';
import { DEMO_KEY } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

let emu: Emulator;
const env = { CHANNEL_API_KEY: DEMO_KEY };
const on = (agent: string) => ['--base-url', emu.baseUrl, '--agent', agent];
emulatorSuite('cc-cli-messages-', (s) => ({ emu } = s));

let config: string;
let data: string;
let secrets: MemorySecretStore;
/** A saved team of the emulator's agents, whose companion keeps the data folder's messages. */
const saved = () => ({ env, configDir: config, secretStore: secrets });
beforeEach(async () => {
  await emu.control.reset();
  config = await mkdtemp(join(tmpdir(), 'cc-cli-messages-config-'));
  data = join(config, 'data');
  secrets = new MemorySecretStore();
  const added = await runCli(
    [
      'team',
      'add',
      '--label',
      'Acme',
      '--base-url',
      emu.baseUrl,
      '--agent',
      'agent-connected',
      '--agent',
      'agent-unlinked',
    ],
    saved(),
  );
  expect(added.code, added.stderr).toBe(0);
});
afterEach(async () => {
  await rm(config, { recursive: true, force: true });
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
    const thread = await runCli(['messages', '--agent', 'agent-unlinked', '--with', '+15550102000'], saved());
    expect(thread.stdout).toContain("→ nobody home — Not sent: The agent's number is not linked.");
  });

  it('a usage error sends nothing and records nothing', async () => {
    const r = await runCli(
      ['send', ...on('agent-connected'), '--to', 'not-a-number', '--text', 'x', '--data-dir', data],
      { env },
    );
    expect(r.code).toBe(2);
    // (The saved team's companion made the data folder already: the send log holds nothing.)
    expect(await new SendLog(data).read()).toEqual([]);
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
    // Taken in by the companion (as a running one takes them when they arrive), then answered.
    expect((await runCli(['messages', '--json'], saved())).code).toBe(0);
    expect(
      (
        await runCli(
          ['send', ...on('agent-connected'), '--to', '+15550101111', '--text', 'our answer', '--data-dir', data],
          { env },
        )
      ).code,
    ).toBe(0);

    const list = await runCli(['messages', '--json'], saved());
    expect(list.code).toBe(0);
    expect(list.json().map((c) => [c.contact, c.unread, c.count])).toEqual([
      ['+15550101111', 2, 3],
      ['+15550102222', 1, 1],
    ]);
    const human = await runCli(['messages', '--agent', 'agent-connected'], saved());
    expect(human.stdout).toMatch(/\+15550101111 .* 2 unread .* You: our answer/);

    const thread = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+15550101111', '--json'],
      saved(),
    );
    expect(thread.json().map((m) => [m.direction, m.text])).toEqual([
      ['in', 'first question'],
      ['in', 'second question'],
      ['out', 'our answer'],
    ]);
    const last = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+1 (555) 010-1111', '--limit', '1'],
      saved(),
    );
    expect(last.stdout).toContain('the latest 1');
    expect(last.stdout).toContain('→ our answer');
  });

  it('a simulated delivery: marked in the list and the thread', async () => {
    const t = Date.now() - 60_000;
    await store({ ...delivery('agent-connected', '15550100002', 'made up here', t), simulated: true });
    const list = await runCli(['messages', '--agent', 'agent-connected'], saved());
    expect(list.stdout).toMatch(/\+15550100002 .* 1 unread \(simulated\)/);
    const thread = await runCli(['messages', '--agent', 'agent-connected', '--with', '+15550100002'], saved());
    expect(thread.stdout).toContain('← made up here (simulated, not from WhatsApp)');
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
    const r = await runCli(['messages', '--agent', 'agent-connected', '--json'], saved());
    expect(r.json()).toMatchObject([{ contact: '+15550101111', count: 1 }]);
  });

  it('--search finds words and numbers in any written form; --export writes a conversation; --delete asks first', async () => {
    const t = Date.now() - 60_000;
    await store(
      delivery('agent-connected', '15550107777', 'where is my parcel', t),
      delivery('agent-connected', '15550102222', 'unrelated', t + 1000),
    );
    const byNumber = await runCli(['messages', '--search', '+1 555 010 7777', '--json'], saved());
    expect(byNumber.code, byNumber.stderr).toBe(0);
    expect(byNumber.json().some((h) => h.kind === 'contact')).toBe(true);
    const byWord = await runCli(['messages', '--search', 'parcel'], saved());
    expect(byWord.stdout).toContain('where is my parcel');
    expect(byWord.stdout).not.toContain('unrelated');

    const csv = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+1 (555) 010-7777', '--export', 'csv'],
      saved(),
    );
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/,/);
    expect(csv.stdout).toContain('where is my parcel');
    const file = join(config, 'out.jsonl');
    const jsonl = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+15550107777', '--export', 'jsonl', '--output', file],
      saved(),
    );
    expect(jsonl.code, jsonl.stderr).toBe(0);
    expect(JSON.parse((await readFile(file, 'utf8')).split('\n')[0]!)).toMatchObject({ text: 'where is my parcel' });

    const unasked = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+15550107777', '--delete'],
      saved(),
    );
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('--yes');
    const deleted = await runCli(
      ['messages', '--agent', 'agent-connected', '--with', '+15550107777', '--delete', '--yes'],
      saved(),
    );
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = await runCli(['messages', '--agent', 'agent-connected', '--json'], saved());
    expect(after.json().map((c) => c.contact)).toEqual(['+15550102222']);
  });

  it('--with without --agent: the one agent with that conversation; several or none need --agent', async () => {
    const t = Date.now() - 60_000;
    await store(
      delivery('agent-connected', '15550101111', 'only here', t),
      delivery('agent-connected', '15550105555', 'to one', t + 1000),
      delivery('agent-unlinked', '15550105555', 'to the other', t + 2000),
    );
    const one = await runCli(['messages', '--with', '+1 555 010 1111', '--json'], saved());
    expect(one.code, one.stderr).toBe(0);
    expect(one.json().map((m) => [m.agentId, m.text])).toEqual([['agent-connected', 'only here']]);
    const csv = await runCli(['messages', '--with', '+15550101111', '--export', 'csv'], saved());
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain('only here');
    const several = await runCli(['messages', '--with', '+15550105555'], saved());
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('several agents (agent-connected, agent-unlinked): name one with --agent');
    const none = await runCli(['messages', '--with', '+15550109876', '--delete', '--yes'], saved());
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no agent has a conversation with +15550109876');
  });

  it('a bad number or agent is a usage error', async () => {
    expect((await runCli(['messages', '--agent', 'agent-connected', '--with', 'nope'], saved())).code).toBe(2);
    expect((await runCli(['messages', '--agent', 'nobody'], saved())).code).toBe(2);
  });

  it('says where it looked when there is nothing', async () => {
    const r = await runCli(['messages'], saved());
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`no messages yet in ${data}`);
  });

  it('beside a running companion: --follow prints each message as it arrives; what others wrote is escaped', async () => {
    const hosted = await hostCompanion({ shell: 'up', configDir: config, secrets, tunnelPort: 0, startTunnel: true });
    try {
      const client = hosted.client();
      const [team] = await client.request('teams.list', {});
      const status = await client.request('tunnel.start', {});
      await client.request('webhook.register', {
        teamId: team!.teamId,
        agentId: 'agent-connected',
        publicUrl: `${status.listenUrl}/hooks/agent-connected`,
      });
      const stop = new AbortController();
      let sent = false;
      const run = await runCli(['messages', '--agent', 'agent-connected', '--with', '+15550101111', '--follow'], {
        ...saved(),
        signal: stop.signal,
        onStdout: (_c, all) => {
          if (!sent && all.includes('(no messages)')) {
            sent = true;
            // Once the thread is printed (and the command listens), someone writes with terminal escapes.
            setTimeout(
              () =>
                emu.control.inbound('agent-connected', {
                  from: '15550101111',
                  text: 'hi \u001b]0;owned\u0007\u001b[2Jthere',
                }),
              200,
            );
          }
          if (all.includes('there')) stop.abort();
        },
      });
      expect(run.code, run.stderr).toBe(0);
      const line = run.stdout.split('\n').find((l) => l.includes('there'))!;
      expect(line).toContain('← hi \\x1b]0;owned\\x07\\x1b[2Jthere');
      // eslint-disable-next-line no-control-regex
      expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      // A name with a terminal escape is refused, as a team label is.
      const named = await client
        .request('messages.setName', { phone: '15550101111', name: 'Eve\u001b[2J' })
        .catch((e: Error) => e);
      expect(named).toBeInstanceOf(Error);
      await client.close();
    } finally {
      await hosted.close();
    }
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
