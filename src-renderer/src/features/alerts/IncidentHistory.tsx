// The history of resolved incidents (alerts.history, then those resolved since), latest first:
// filters by team, agent and kind; each row with its start, end, duration and the words of its last
// alert; "Export CSV" saves the filtered rows.
import { useEffect, useId, useMemo, useState } from 'react';
import type { ErrorDTO, IncidentDTO } from '../../../../src-shared/contract';
import { incidentLengthWords } from '../../../../src-shared/words';
import { ErrorNotice } from '../../components/ErrorNotice';
import { downloadText } from '../../components/download';
import { formatClock } from '../../components/time';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { historyCsv } from './history-csv';

/** Rows drawn at most; the CSV holds every filtered row. */
const SHOWN_MAX = 100;

const agentValue = (teamId: string, agentId: string) => JSON.stringify([teamId, agentId]);

function HistoryRow({ i, teamLabel, agentLabel }: { i: IncidentDTO; teamLabel: string; agentLabel: string }) {
  // The end the incident's length runs to (the companion's endedAt; its close is later for a drop).
  const endedAt = i.endedAt ?? i.resolvedAt ?? i.openedAt;
  return (
    <li className="incident">
      <p>
        <strong>
          {agentLabel} — {i.title}
        </strong>{' '}
        <span className="muted">{teamLabel}</span>
      </p>
      <p>{i.message}</p>
      <p className="muted">
        From <time dateTime={new Date(i.openedAt).toISOString()}>{formatClock(i.openedAt)}</time> to{' '}
        <time dateTime={new Date(endedAt).toISOString()}>{formatClock(endedAt)}</time> ·{' '}
        {incidentLengthWords(i, endedAt)}
      </p>
      <div className="actions">
        <a href={agentHref(i.teamId, i.agentId)}>Open {agentLabel}</a>
      </div>
    </li>
  );
}

export function IncidentHistory() {
  const uid = useId();
  const history = useApp((s) => s.incidentHistory);
  const load = useApp((s) => s.loadIncidentHistory);
  const teams = useApp((s) => s.teams);
  const agents = useApp((s) => s.agents);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [teamId, setTeamId] = useState('');
  const [agent, setAgent] = useState('');
  const [kind, setKind] = useState('');
  useEffect(() => {
    void load().then(setError);
  }, [load]);

  const teamLabel = (id: string) => teams.find((t) => t.teamId === id)?.label ?? id;
  const agentLabel = (t: string, a: string) => agents[agentKey(t, a)]?.label ?? a;
  const all = useMemo(() => history ?? [], [history]);
  const byTeam = all.filter((i) => teamId === '' || i.teamId === teamId);
  const byAgent = byTeam.filter((i) => agent === '' || agentValue(i.teamId, i.agentId) === agent);
  const rows = byAgent.filter((i) => kind === '' || i.kind === kind);
  const teamIds = [...new Set(all.map((i) => i.teamId))];
  const agentChoices = [...new Map(byTeam.map((i) => [agentValue(i.teamId, i.agentId), i] as const)).entries()];
  const kinds = [...new Set(byAgent.map((i) => i.kind))].sort();
  const filtered = teamId !== '' || agent !== '' || kind !== '';

  const exportCsv = () => {
    const csv = historyCsv(rows, { teamLabel, agentLabel });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    downloadText(`incident-history-${stamp}.csv`, csv, 'text/csv');
  };

  return (
    <section className="card" aria-labelledby={`${uid}-title`}>
      <h3 id={`${uid}-title`}>
        History <span className="muted">({all.length})</span>
      </h3>
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
      <div className="history-filters" role="search" aria-label="Filter the history">
        <label htmlFor={`${uid}-team`}>Team</label>
        <select
          id={`${uid}-team`}
          value={teamId}
          onChange={(e) => {
            setTeamId(e.target.value);
            setAgent('');
          }}
        >
          <option value="">All teams</option>
          {teamIds.map((t) => (
            <option key={t} value={t}>
              {teamLabel(t)}
            </option>
          ))}
        </select>
        <label htmlFor={`${uid}-agent`}>Agent</label>
        <select id={`${uid}-agent`} value={agent} onChange={(e) => setAgent(e.target.value)}>
          <option value="">All agents</option>
          {agentChoices.map(([value, i]) => (
            <option key={value} value={value}>
              {agentLabel(i.teamId, i.agentId)}
              {teamId === '' && teamIds.length > 1 ? ` (${teamLabel(i.teamId)})` : ''}
            </option>
          ))}
        </select>
        <label htmlFor={`${uid}-kind`}>Kind</label>
        <select id={`${uid}-kind`} value={kind} onChange={(e) => setKind(e.target.value)}>
          <option value="">All kinds</option>
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <button type="button" className="secondary" onClick={exportCsv} disabled={rows.length === 0}>
          Export CSV ({rows.length})
        </button>
      </div>
      <p className="muted" aria-live="polite">
        {history === null
          ? 'Reading the history…'
          : all.length === 0
            ? 'No resolved incidents yet.'
            : rows.length === 0
              ? 'Nothing matches.'
              : `${filtered ? `${rows.length} of ${all.length}` : rows.length} resolved, latest first${rows.length > SHOWN_MAX ? ` (the first ${SHOWN_MAX} shown; the CSV has all)` : ''}.`}
      </p>
      {rows.length > 0 && (
        <ul className="plain history" aria-label="Resolved incidents, latest first">
          {rows.slice(0, SHOWN_MAX).map((i) => (
            <HistoryRow key={i.id} i={i} teamLabel={teamLabel(i.teamId)} agentLabel={agentLabel(i.teamId, i.agentId)} />
          ))}
        </ul>
      )}
    </section>
  );
}
