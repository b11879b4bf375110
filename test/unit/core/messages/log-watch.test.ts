// The watch of the tunnel's log from outside its writer: nothing read while the segment files are
// unchanged; once the writer appends, the log is read again (read-only) and refresh() adds and
// announces only the new messages.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages, TunnelLogWatch, type Message } from '../../../../src-main/core/messages';
import { systemClock } from '../../../../src-main/core/ports';
import { EventLog, type StoredDelivery } from '../../../../src-main/core/tunnel';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'log-watch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
function inbound(text: string): StoredDelivery {
  n++;
  const body = {
    event: 'message.received',
    from: '15550102000',
    message: { id: `wamid_w${n}`, type: 'text', text, fromMe: false },
    timestamp: new Date().toISOString(),
  };
  return {
    kind: 'delivery',
    id: `dw${n}`,
    agentId: 'a1',
    receivedAt: Date.now(),
    method: 'POST',
    path: '/hooks/a1',
    headers: {},
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: { event: 'message.received', from: '15550102000', messageId: `wamid_w${n}`, type: 'text' },
    forward: false,
  };
}

describe('TunnelLogWatch', () => {
  it('reads again only when the writer changed the log; refresh announces only the new messages', async () => {
    const tunnelDir = path.join(dir, 'tunnel');
    const writer = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await writer.open();
    await writer.appendDelivery(inbound('first'));
    const watch = new TunnelLogWatch(tunnelDir, systemClock);
    const messages = new Messages({ dataDir: dir, now: () => Date.now(), readOnly: true });
    await messages.open(await watch.read());
    const announced: Message[] = [];
    messages.on('message', (m) => announced.push(m));
    expect(await watch.readIfChanged()).toBeNull();
    await writer.appendDelivery(inbound('second'));
    await writer.close();
    const again = await watch.readIfChanged();
    expect(again).not.toBeNull();
    await messages.refresh(again!);
    expect(announced.map((m) => m.text)).toEqual(['second']);
    expect((await messages.thread('a1', '15550102000', { limit: 10 })).messages.map((m) => m.text)).toEqual([
      'first',
      'second',
    ]);
    expect(await watch.readIfChanged()).toBeNull();
  });

  it('a data folder with no log yet is empty, not an error', async () => {
    const watch = new TunnelLogWatch(path.join(dir, 'nowhere'), systemClock);
    expect([...(await watch.read())]).toEqual([]);
  });
});
