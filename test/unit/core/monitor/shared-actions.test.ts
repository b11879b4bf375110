// The acknowledgements two apps on one data folder share: each reads the other's lines once, from
// where it last read; its own lines, torn lines and lines of another shape are skipped.
import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedActions, type SharedAction } from '../../../../src-main/core/monitor/shared-actions';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

type Acknowledge = Extract<SharedAction, { type: 'acknowledge' }>;

const ack = (agentId: string): Omit<Acknowledge, 'app'> => ({
  type: 'acknowledge',
  at: 1000,
  teamId: 't1',
  agentId,
  kind: 'needs-scan',
  openedAt: 500,
});

/** Who acted, and on what: the agent acknowledged, or the end of a snooze. */
const what = (a: SharedAction) => [a.app, a.type === 'acknowledge' ? a.agentId : a.until];

describe('SharedActions', () => {
  it("reads the other app's actions once each, not its own, and skips what is not an action", async () => {
    dir = await mkdtemp(join(tmpdir(), 'shared-actions-'));
    const file = join(dir, 'on-call-actions.jsonl');
    const errors: unknown[] = [];
    const one = new SharedActions(file, 'one', (e) => errors.push(e));
    const two = new SharedActions(file, 'two', (e) => errors.push(e));
    one.write([ack('a1'), { type: 'snooze', at: 1000, until: 9000 }]);
    await one.flush();
    await appendFile(file, 'not json\n{"type":"snooze","app":"one"}\n');
    two.write([ack('a2')]);
    await two.flush();
    expect((await two.readNew()).map(what)).toEqual([
      ['one', 'a1'],
      ['one', 9000],
    ]);
    expect(await two.readNew()).toEqual([]);
    expect((await one.readNew()).map(what)).toEqual([['two', 'a2']]);
    expect(errors).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('a line read before its end is taken once it is complete; what was there at the start is not read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'shared-actions-'));
    const file = join(dir, 'on-call-actions.jsonl');
    await appendFile(file, `${JSON.stringify({ ...ack('old'), app: 'gone' })}\n`);
    const reader = new SharedActions(file, 'reader', () => undefined);
    const line = JSON.stringify({ ...ack('a1'), app: 'writer' });
    await appendFile(file, line.slice(0, 20));
    expect(await reader.readNew()).toEqual([]);
    await appendFile(file, `${line.slice(20)}\n`);
    expect((await reader.readNew()).map(what)).toEqual([['writer', 'a1']]);
  });
});
