import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IncidentHistory,
  INCIDENT_HISTORY_FILE,
  type ResolvedIncident,
} from '../../../../src-main/core/monitor/incident-history';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'incident-history-'));
  file = join(dir, INCIDENT_HISTORY_FILE);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rec = (i: number, over: Partial<ResolvedIncident> = {}): ResolvedIncident => ({
  id: `inc-${i}`,
  teamId: 't1',
  agentId: 'a1',
  kind: 'reconnecting',
  severity: 'warning',
  title: `Title ${i}`,
  message: 'words',
  openedAt: T0 + i * 60_000,
  acknowledgedAt: null,
  resolvedAt: T0 + i * 60_000 + 30_000,
  ...over,
});

describe('IncidentHistory', () => {
  it('keeps resolved incidents in an owner-only JSON-lines file and reads them back at start', async () => {
    const h = new IncidentHistory({ file });
    h.add(rec(1));
    h.add(rec(2, { agentId: 'a2', kind: 'needs-scan', teamWide: true }));
    await h.flush();
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(2);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = new IncidentHistory({ file });
    expect(again.list().map((r) => r.id)).toEqual(['inc-2', 'inc-1']);
    expect(again.list()[0]).toEqual(rec(2, { agentId: 'a2', kind: 'needs-scan', teamWide: true }));
  });

  it('while another app keeps the file, keeps records in memory only; reload takes the file as it is', async () => {
    let keeps = true;
    const other = new IncidentHistory({ file });
    const h = new IncidentHistory({ file, writable: () => keeps });
    h.add(rec(1));
    await h.flush();
    keeps = false;
    h.add(rec(2));
    other.add(rec(3));
    await Promise.all([h.flush(), other.flush()]);
    const ids = async () =>
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as ResolvedIncident).id);
    expect(await ids()).toEqual(['inc-1', 'inc-3']);
    expect(h.list().map((r) => r.id)).toEqual(['inc-2', 'inc-1']);
    keeps = true;
    await h.reload();
    expect(h.list().map((r) => r.id)).toEqual(['inc-3', 'inc-1']);
    h.add(rec(4));
    await h.flush();
    expect(await ids()).toEqual(['inc-1', 'inc-3', 'inc-4']);
  });

  it('filters by team, agent and kind, newest first, up to a limit', () => {
    const h = new IncidentHistory({ file: null });
    h.add(rec(1));
    h.add(rec(2, { agentId: 'a2' }));
    h.add(rec(3, { kind: 'unreachable' }));
    h.add(rec(4, { teamId: 't2' }));
    expect(h.list({ agentId: 'a1' }).map((r) => r.id)).toEqual(['inc-4', 'inc-3', 'inc-1']);
    expect(h.list({ teamId: 't1', agentId: 'a1', kind: 'reconnecting' }).map((r) => r.id)).toEqual(['inc-1']);
    expect(h.list({ limit: 2 }).map((r) => r.id)).toEqual(['inc-4', 'inc-3']);
  });

  it('keeps the last max records, compacting the file, and one record per id', async () => {
    const h = new IncidentHistory({ file, max: 3, compactSlack: 1 });
    for (let i = 1; i <= 6; i++) h.add(rec(i));
    h.add(rec(6, { title: 'again' }));
    await h.flush();
    expect(h.list().map((r) => r.id)).toEqual(['inc-6', 'inc-5', 'inc-4']);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4);
    const again = new IncidentHistory({ file, max: 3 });
    expect(again.list().map((r) => [r.id, r.title])).toEqual([
      ['inc-6', 'again'],
      ['inc-5', 'Title 5'],
      ['inc-4', 'Title 4'],
    ]);
  });

  it('skips torn or foreign lines and refuses a record without its fields', async () => {
    await writeFile(file, `${JSON.stringify(rec(1))}\n{"torn":\nnot json\n${JSON.stringify({ id: 'x' })}\n`);
    const errors: unknown[] = [];
    const h = new IncidentHistory({ file, onError: (e) => errors.push(e) });
    expect(h.list().map((r) => r.id)).toEqual(['inc-1']);
    expect(h.add({ ...rec(2), kind: '' })).toBe(false);
    expect(String(errors[0])).toContain('kind');
    expect(h.list()).toHaveLength(1);
    await h.flush();
    expect(new IncidentHistory({ file }).list().map((r) => r.id)).toEqual(['inc-1']);
  });
});
