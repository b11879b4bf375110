import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyRejected } from '../../../../src-main/core/api/errors';
import { formatDiagnostics } from '../../../../src-main/core/monitor/diagnostics';
import { errorToDTO } from '../../../../src-main/core/monitor/health';
import { Timeline, storedStatus, type TimelineEntry } from '../../../../src-main/core/monitor/timeline';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitor-timeline-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (i: number, agentId = 'a1'): TimelineEntry => ({
  at: T0 + i * 1000,
  teamId: 't1',
  agentId,
  from: i % 2 ? 'connected' : 'reconnecting',
  to: i % 2 ? 'reconnecting' : 'connected',
  state: i % 2 ? 'reconnecting' : 'connected',
});

describe('Timeline', () => {
  it('keeps entries on disk as JSONL per agent and reads them back after a restart', async () => {
    const t = new Timeline({ dataDir: dir });
    await t.record(entry(1));
    await t.record(entry(2));
    await t.record(entry(1, 'other/agent'));
    const lines = (await readFile(join(dir, 'a1.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).at)).toEqual([T0 + 1000, T0 + 2000]);
    const again = new Timeline({ dataDir: dir });
    expect((await again.list('a1')).map((e) => e.to)).toEqual(['reconnecting', 'connected']);
    expect(await again.list('other/agent')).toHaveLength(1);
    expect(await again.list('nobody')).toEqual([]);
  });

  it('while another app keeps the files, keeps entries in memory only; reload reads the files again', async () => {
    let keeps = false;
    const t = new Timeline({ dataDir: dir, writable: () => keeps });
    const other = new Timeline({ dataDir: dir });
    await t.record(entry(1));
    await other.record(entry(2));
    expect((await t.list('a1')).map((e) => e.at)).toEqual([entry(1).at]);
    keeps = true;
    await t.reload();
    expect((await t.list('a1')).map((e) => e.at)).toEqual([entry(2).at]);
    await t.record(entry(3));
    expect((await new Timeline({ dataDir: dir }).list('a1')).map((e) => e.at)).toEqual([entry(2).at, entry(3).at]);
  });

  it('is bounded: keeps the last N, compacting the file once it exceeds N + slack', async () => {
    const t = new Timeline({ dataDir: dir, maxEntries: 10, compactSlack: 5 });
    for (let i = 0; i < 15; i++) await t.record(entry(i));
    const count = async () => (await readFile(join(dir, 'a1.jsonl'), 'utf8')).trim().split('\n').length;
    expect(await count()).toBe(15);
    expect((await t.list('a1')).map((e) => e.at)).toEqual(Array.from({ length: 10 }, (_, k) => T0 + (k + 5) * 1000));
    await t.record(entry(15));
    expect(await count()).toBe(10);
    const reread = await new Timeline({ dataDir: dir, maxEntries: 10 }).list('a1');
    expect(reread.map((e) => e.at)).toEqual(Array.from({ length: 10 }, (_, k) => T0 + (k + 6) * 1000));
  });

  it('default bound is 500', async () => {
    const t = new Timeline({ dataDir: null });
    for (let i = 0; i < 520; i++) await t.record(entry(i));
    const list = await t.list('a1');
    expect(list).toHaveLength(500);
    expect(list[0]!.at).toBe(T0 + 20_000);
  });

  it('skips torn or foreign lines and never stores the QR itself', async () => {
    const t = new Timeline({ dataDir: dir });
    const s = storedStatus({
      connected: false,
      linked: false,
      state: 'pairing',
      needsScan: true,
      phone: null,
      qr: 'data:image/png;base64,SECRETQR',
    });
    await t.record({ ...entry(1), status: s });
    const { appendFile } = await import('node:fs/promises');
    await appendFile(join(dir, 'a1.jsonl'), '{"torn":\n{"at":"nope"}\n');
    const text = await readFile(join(dir, 'a1.jsonl'), 'utf8');
    expect(text).not.toContain('SECRETQR');
    const list = await new Timeline({ dataDir: dir }).list('a1');
    expect(list).toHaveLength(1);
    expect(list[0]!.status!.qr).toBe(true);
  });

  it('redacts anything key-like in stored error text', async () => {
    const t = new Timeline({ dataDir: dir });
    await t.record({
      ...entry(1),
      error: { ...errorToDTO(new Error('failed with Authorization: Bearer sk-live-123456')) },
    });
    const text = await readFile(join(dir, 'a1.jsonl'), 'utf8');
    expect(text).not.toContain('sk-live-123456');
    expect(text).toContain('[redacted]');
  });
});

describe('formatDiagnostics', () => {
  it('lists agent, current health, open incident, last changes with times and durations', () => {
    const now = T0 + 120_000;
    const text = formatDiagnostics({
      now,
      agents: [
        {
          snapshot: {
            teamId: 't1',
            agentId: 'a1',
            health: 'reconnecting',
            state: 'reconnecting',
            phone: '15550100001',
            needsScan: false,
            connected: false,
            linked: true,
            pairing: false,
            since: T0 + 78_000,
            lastPollAt: now - 2000,
            lastSuccessAt: now - 4000,
            consecutiveFailures: 0,
            lastError: errorToDTO(new KeyRejected()),
          },
          incidents: [
            {
              id: 'inc-1',
              teamId: 't1',
              agentId: 'a1',
              agentIds: ['a1'],
              kind: 'reconnecting',
              openedAt: T0 + 78_000,
              delivered: true,
              raised: true,
              acknowledgedAt: null,
              resolvedAt: null,
              lastAlertAt: T0 + 78_000,
            },
          ],
          entries: [
            { at: T0, teamId: 't1', agentId: 'a1', from: 'unknown', to: 'connected', state: 'connected' },
            {
              at: T0 + 78_000,
              teamId: 't1',
              agentId: 'a1',
              from: 'connected',
              to: 'reconnecting',
              state: 'reconnecting',
            },
          ],
        },
      ],
    });
    expect(text).toContain('Agent a1 (team t1)');
    expect(text).toContain('health: reconnecting for 42 s');
    expect(text).toContain('phone: +15550100001');
    expect(text).toContain('open incident: inc-1 reconnecting');
    expect(text).toContain('unknown → connected  (lasted 1 min 18 s)');
    expect(text).toContain('connected → reconnecting  (lasted 42 s so far)');
    expect(text).toContain('last error: key-rejected 401 UNAUTHORIZED');
  });
});
