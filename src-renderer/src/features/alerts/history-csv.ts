// The incident history as CSV (RFC 4180): a header row, then one row per resolved incident, CRLF
// line ends. A field holding a comma, a double quote or a line break is quoted, its quotes doubled;
// a text field starting with = + - @ or a tab is prefixed with ' so a spreadsheet shows it as text
// instead of running it as a formula.
import type { IncidentDTO } from '../../../../src-shared/contract';
import { incidentSeconds } from '../../../../src-shared/words';

const HISTORY_CSV_HEADER = [
  'team label',
  'agent id',
  'agent label',
  'kind',
  'opened at',
  'ended at',
  'duration seconds',
  'title',
] as const;

/** One CSV field. */
function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface HistoryCsvNames {
  teamLabel(teamId: string): string;
  agentLabel(teamId: string, agentId: string): string;
}

/** The rows as CSV text, in the order given. */
export function historyCsv(rows: readonly IncidentDTO[], names: HistoryCsvNames): string {
  const lines = [HISTORY_CSV_HEADER.map(csvField).join(',')];
  for (const i of rows) {
    const endedAt = i.endedAt ?? i.resolvedAt;
    const cells: (string | number)[] = [
      names.teamLabel(i.teamId),
      i.agentId,
      names.agentLabel(i.teamId, i.agentId),
      i.kind,
      new Date(i.openedAt).toISOString(),
      endedAt === null ? '' : new Date(endedAt).toISOString(),
      incidentSeconds(i),
      i.title,
    ];
    lines.push(cells.map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
