// One drop, one length: the monitor against the emulator on one fake clock (test/helpers/stepped-clock.ts),
// the companion's incident feed turning its incidents into the contract's DTOs, and every place that
// prints the incident — the DTO, its title, the history row, the CSV export's duration (incidentSeconds,
// which test/unit/renderer/history-csv.test.ts shows the CSV prints), the command line's line and the
// alert line — reading the one length the core computed: a 40 s drop is "40 s" everywhere.
import { describe, expect, it } from 'vitest';
import { IncidentFeed } from '../../src-main/app/contract/alerts';
import { alertWords, IncidentHistory } from '../../src-main/core/monitor';
import type { AlertEventDTO } from '../../src-shared/contract';
import { formatAgo } from '../../src-shared/duration';
import { incidentLengthWords, incidentLine, incidentSeconds } from '../../src-shared/words';
import { steppedRig, trackHttp } from '../helpers/stepped-clock';
import { monitorRig } from '../helpers/monitor-rig';

const START = Date.UTC(2024, 4, 6, 9, 0, 0);
const S = 1000;

trackHttp();
const rig = monitorRig();

describe('an incident has one length, printed the same everywhere', () => {
  it('a 40 s drop reads "40 s" in the DTO, its title, the history, the CSV row, the CLI line and the alert line', async () => {
    const h = await steppedRig(rig, {
      start: START,
      key: 'incident-length-key-1',
      teamId: 'team-len',
      agents: [{ agentId: 'drop40', state: 'connected', phone: '15550100040' }],
      tmpPrefix: 'incident-length-',
      seeds: { emulator: 3, monitor: 4 },
      intervalMs: 15_000,
      // No jitter: the polls fall on whole seconds, so the drop's edges are seen exactly.
      monitor: {
        idPrefix: 'len-',
        teamLabel: () => 'On call',
        poll: { intervalMs: 15_000, fastIntervalMs: 2000, jitter: 0 },
      },
    });
    const events: AlertEventDTO[] = [];
    const history = new IncidentHistory({ file: null });
    const feed = new IncidentFeed(
      (e) => events.push(e),
      () => h.clock.now(),
      () => ({ escalateAfterMin: 10, flapCount: 3, flapWindowMinutes: 10 }),
      () => 'On call',
      history,
    );
    h.monitor.on('incident', (u) => feed.onIncident(u));
    h.monitor.on('alert', (a) => feed.onAlert(a));
    h.monitor.start();
    await h.clock.runTo(0);

    // The drop comes 1 ms before a poll, so the poll sees it at once; the number is back 40 s later.
    const last = h.polls.at(-1)!;
    await h.clock.runTo(last.at + last.nextPollInMs - START - 1);
    const droppedAt = h.clock.now();
    await h.emu.control.drop('drop40', { seconds: 40 });
    await h.clock.runFor(7 * S);
    // Seven seconds after the drop, the open incident says it opened at most seven seconds ago.
    const opened = events.find((e) => e.change === 'opened')!.incident;
    expect(opened.openedAt).toBeGreaterThanOrEqual(droppedAt);
    expect(formatAgo(opened.openedAt, h.clock.now())).toBe('7 s ago');
    expect(opened).toMatchObject({ endedAt: null, durationMs: null });

    await h.clock.runFor(2 * 60 * S);
    const resolved = events.find((e) => e.change === 'resolved')!.incident;
    expect(resolved.durationMs).toBe(40 * S);
    expect(resolved.endedAt! - resolved.openedAt).toBe(40 * S);
    // It closed once the number had stayed connected 30 s; that wait is not part of its length.
    expect(resolved.resolvedAt! - resolved.endedAt!).toBe(30 * S);
    expect(resolved.title).toBe('drop40 (+15550100040) is back to connected after 40 s');
    expect(incidentLengthWords(resolved, h.clock.now())).toBe('resolved after 40 s');
    expect(history.list()[0]).toMatchObject({ id: resolved.id, durationMs: 40 * S, endedAt: resolved.endedAt });

    expect(incidentSeconds(resolved)).toBe(40);
    expect(incidentLine(resolved, { team: 'On call', agent: 'drop40' }, h.clock.now())).toBe(
      'Resolved On call/drop40: drop40 (+15550100040) is back to connected after 40 s (resolved after 40 s)',
    );
    const recovered = h.alerts.find((a) => a.kind === 'recovered')!;
    expect(alertWords(recovered).line).toBe(
      'Resolved [recovered] On call: drop40 (+15550100040) is back to connected after 40 s',
    );
    // The reconnecting alert and the open incident carry the same severity word.
    const reconnecting = h.alerts.find((a) => a.kind === 'reconnecting')!;
    expect(alertWords(reconnecting).headline).toBe('Warning [reconnecting] On call');
    expect(opened.severity).toBe('warning');
  });
});
