// "Copy diagnostics": a plain-text hand-off of agents, their health, open incidents and last
// changes with times and durations. Built only from snapshots and timeline entries, which never
// hold a key; error text is redacted once more on the way out.
import { redactSecrets } from './health';
import { formatDuration } from './time';
import type { TimelineEntry } from './timeline';
import type { AgentSnapshot, Incident } from './types';

export interface DiagnosticsAgent {
  snapshot: AgentSnapshot;
  incidents: Incident[];
  entries: TimelineEntry[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export function formatDiagnostics(input: {
  now: number;
  agents: DiagnosticsAgent[];
  lastChanges?: number;
  version?: string;
}): string {
  const n = input.lastChanges ?? 20;
  const out: string[] = [];
  out.push(`Channel Companion monitor diagnostics — ${iso(input.now)}${input.version ? ` (v${input.version})` : ''}`);
  out.push(`${input.agents.length} agent(s)`);
  for (const { snapshot: s, incidents, entries } of input.agents) {
    out.push('');
    out.push(`Agent ${s.agentId} (team ${s.teamId})`);
    out.push(`  health: ${s.health} for ${formatDuration(input.now - s.since)} (since ${iso(s.since)})`);
    out.push(
      `  state: ${s.state ?? '—'}  phone: ${s.phone ? `+${s.phone}` : '—'}  needsScan: ${s.needsScan}${s.pairing ? '  (pairing QR on offer)' : ''}`,
    );
    out.push(
      `  last poll: ${s.lastPollAt === null ? 'never' : `${iso(s.lastPollAt)} (${formatDuration(input.now - s.lastPollAt)} ago)`}` +
        (s.consecutiveFailures > 0 ? `, ${s.consecutiveFailures} failure(s) in a row` : ''),
    );
    if (s.lastError)
      out.push(
        `  last error: ${s.lastError.kind} ${s.lastError.status ?? ''} ${s.lastError.code}: ${redactSecrets(s.lastError.message)}`.replace(
          / +/g,
          ' ',
        ),
      );
    if (incidents.length === 0) out.push('  open incident: none');
    for (const i of incidents) {
      out.push(
        `  open incident: ${i.id} ${i.kind}${i.agentId === null ? ' (team-wide)' : ''}, opened ${iso(i.openedAt)} (${formatDuration(input.now - i.openedAt)} ago), ` +
          `alerted: ${i.delivered ? 'yes' : 'no'}, acknowledged: ${i.acknowledgedAt === null ? 'no' : iso(i.acknowledgedAt)}`,
      );
    }
    const last = entries.slice(-n);
    out.push(`  last ${last.length} change(s):`);
    if (last.length === 0) out.push('    (none recorded)');
    last.forEach((e, k) => {
      const next = last[k + 1];
      const lasted = next ? formatDuration(next.at - e.at) : `${formatDuration(input.now - e.at)} so far`;
      const detail = e.error ? ` error=${e.error.kind}/${e.error.code}` : e.state ? ` state=${e.state}` : '';
      out.push(`    ${iso(e.at)}  ${e.from} → ${e.to}  (lasted ${lasted})${detail}`);
    });
  }
  return redactSecrets(out.join('\n')) + '\n';
}
