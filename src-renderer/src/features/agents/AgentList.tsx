// Agents home: a summary of every agent's health, then each agent (worst health first) with its id,
// team, number, time in state and the action its state calls for (an unreachable agent: its last
// known state, shown beside the mark, and that state's action); filters (words, health, team); Add
// agent, which opens the agent's page once it is added (where Pair is). A long list is windowed (a
// team's thousands of agents put only the rows near the viewport in the page: WindowedAgentRows), and
// each row follows its own agent in the store, so a poll renders one row again.
import { lazy, Suspense, useEffect, useId, useMemo, useRef, useState } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { TeamSelect } from '../../components/TeamSelect';
import { useNow } from '../../components/TimeAgo';
import { agentHref } from '../../router/routes';
import { selectHealthCounts } from '../../store/agents';
import { isStale } from '../../store/link';
import { useApp } from '../../store/react';
import { useGate } from '../../components/allowed';
import { AddAgent } from '../settings/AddAgentForm';
import { NO_FILTER, shownKeys, type AgentFilter } from './agent-filter';
import { AgentFilterBar } from './AgentFilterBar';
import { AgentRow, type RowsProps } from './AgentRow';
import { HealthSummary } from './HealthSummary';

/** Lists longer than this are windowed (and the windowing code is loaded only then). */
const WINDOW_ABOVE = 100;

const WindowedAgentRows = lazy(() => import('./WindowedAgentRows').then((m) => ({ default: m.WindowedAgentRows })));

/** A short list: every row in the page. */
function PlainAgentRows({ keys, teamLabel, now, lastHeardAt }: RowsProps) {
  return (
    <ul className="agents" aria-label={`${keys.length} agents, worst health first`}>
      {keys.map((key, i) => (
        <AgentRow
          key={key}
          agentKey={key}
          index={i}
          count={keys.length}
          teamLabel={teamLabel}
          now={now}
          lastHeardAt={lastHeardAt}
        />
      ))}
    </ul>
  );
}

/** The agents' rows: all of them for a short list; windowed for a long one (its first rows while it loads). */
function AgentRows(props: RowsProps) {
  if (props.keys.length <= WINDOW_ABOVE) return <PlainAgentRows {...props} />;
  return (
    <Suspense fallback={<PlainAgentRows {...props} keys={props.keys.slice(0, WINDOW_ABOVE)} />}>
      <WindowedAgentRows {...props} />
    </Suspense>
  );
}

/** Add agent, from the home screen: the team (when there are several), then the add form. */
function AddAgentPanel({ onClose }: { onClose: () => void }) {
  const teams = useApp((s) => s.teams);
  const [teamId, setTeamId] = useState(teams[0]?.teamId ?? '');
  const pickId = useId();
  const panel = useRef<HTMLElement>(null);
  // Focus goes to the first field, so typing the agent ID can start at once.
  useEffect(() => panel.current?.querySelector<HTMLElement>('select, input')?.focus(), []);
  const team = teams.find((t) => t.teamId === teamId) ?? teams[0];
  return (
    <section className="card add-agent" aria-labelledby="add-agent-title" ref={panel}>
      <div className="page-head">
        <h3 id="add-agent-title">Add an agent</h3>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      {!team ? (
        <p>
          Add a team first (its API key), in <a href="#/settings">Settings</a>.
        </p>
      ) : (
        <>
          {teams.length > 1 && (
            <div className="form">
              <label htmlFor={pickId}>Team</label>
              <TeamSelect id={pickId} value={team.teamId} onChange={setTeamId} none={null} />
            </div>
          )}
          <AddAgent team={team} onAdded={(agentId) => (window.location.hash = agentHref(team.teamId, agentId))} />
        </>
      )}
    </section>
  );
}

export function AgentList() {
  const teams = useApp((s) => s.teams);
  const total = useApp((s) => s.agentOrder.length);
  const [filter, setFilter] = useState<AgentFilter>(NO_FILTER);
  const shown = useApp(useMemo(() => shownKeys(filter), [filter]));
  const counts = useApp(selectHealthCounts);
  const now = useNow(5000);
  const lastHeardAt = useApp((s) => (isStale(s) ? s.link.lastHeardAt : undefined));
  const teamLabel = useMemo(() => new Map(teams.map((t) => [t.teamId, t.label])), [teams]);
  const [adding, setAdding] = useState(false);
  const addGate = useGate('agents.add');
  return (
    <section aria-labelledby="agents-title">
      <div className="page-head">
        <h2 id="agents-title">Agents</h2>
        <button
          type="button"
          className="secondary"
          aria-expanded={adding}
          onClick={() => setAdding((a) => !a)}
          disabled={!addGate.allowed}
          {...addGate.props}
        >
          Add agent
        </button>
        {addGate.hiddenNote}
      </div>
      {adding && <AddAgentPanel onClose={() => setAdding(false)} />}
      {teams
        .filter((t) => t.keyRejected)
        .map((t) => (
          <p key={t.teamId} role="alert" className="notice notice-error">
            <strong>⚠ The service rejected the API key of team {t.label} (key rejected).</strong> Its agents are not
            being checked. Add the team again with a current key in <a href="#/settings">Settings</a>.
          </p>
        ))}
      {total > 0 && <HealthSummary counts={counts} total={total} stale={lastHeardAt !== undefined} />}
      <AgentFilterBar filter={filter} onChange={setFilter} shown={shown.length} total={total} />
      {total === 0 ? (
        <EmptyState title="No agents yet.">
          <p>
            Add agent IDs to a team in <a href="#/settings">Settings</a>.
          </p>
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState
          title={filter.text.trim() ? `No agent matches “${filter.text}”.` : 'No agent matches these filters.'}
        />
      ) : (
        <AgentRows keys={shown} teamLabel={teamLabel} now={now} lastHeardAt={lastHeardAt} />
      )}
    </section>
  );
}
