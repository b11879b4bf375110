// The monitor's JSON-lines files through the one JSON-lines module: owner-only (0600) whenever written,
// and a line appended after a torn one (a writer stopped mid-line) is kept whole.
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IncidentHistory, type ResolvedIncident } from '../../../../src-main/core/monitor/incident-history';
import { Timeline, type TimelineEntry } from '../../../../src-main/core/monitor/timeline';
import { SharedActions } from '../../../../src-main/core/monitor/shared-actions';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitor-jsonl-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (f: string) => (await stat(f)).mode & 0o777;

const incident = (i: number): ResolvedIncident => ({
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
});

const entry = (i: number): TimelineEntry => ({
  at: T0 + i * 1000,
  teamId: 't1',
  agentId: 'a1',
  from: 'connected',
  to: 'reconnecting',
  state: 'reconnecting',
});

describe("the monitor's JSON-lines files", () => {
  it('a timeline file is owner-only, created or found with another mode', async () => {
    const t = new Timeline({ dataDir: dir });
    await t.record(entry(1));
    const file = t.fileFor('a1')!;
    expect(await modeOf(file)).toBe(0o600);
    await chmod(file, 0o644);
    await t.record(entry(2));
    expect(await modeOf(file)).toBe(0o600);
  });

  it('the incident history keeps an incident added after a torn line', async () => {
    const file = join(dir, 'incident-history.jsonl');
    await writeFile(file, `${JSON.stringify(incident(1))}\n{"id":"inc-2","teamId":`, { mode: 0o600 });
    const h = new IncidentHistory({ file });
    h.add(incident(3));
    await h.flush();
    expect(new IncidentHistory({ file }).list().map((r) => r.id)).toEqual(['inc-3', 'inc-1']);
  });

  it("another app's action appended after a torn line is read", async () => {
    const file = join(dir, 'on-call-actions.jsonl');
    await writeFile(file, '{"type":"snooze","app":"crashed","at":1', { mode: 0o600 });
    const reader = new SharedActions(file, 'here', (e) => {
      throw e;
    });
    const writer = new SharedActions(file, 'there', (e) => {
      throw e;
    });
    writer.write([{ type: 'acknowledge', at: T0, teamId: 't1', agentId: 'a1', kind: 'reconnecting', openedAt: T0 }]);
    await writer.flush();
    expect(await reader.readNew()).toEqual([expect.objectContaining({ type: 'acknowledge', app: 'there' })]);
    expect(await modeOf(file)).toBe(0o600);
  });
});
