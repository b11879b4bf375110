// Agents home: a summary of every agent's health, then each agent (worst health first) with its id,
// team, number, time in state and the action its state calls for (an unreachable agent: its last
// known state, shown beside the mark, and that state's action); a filter; Add agent, which opens
// the agent's page once it is added (where Pair is).
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AgentDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { errorLine } from '../../components/errors';
import { HealthBadge } from '../../components/HealthBadge';
import { HEALTH_GLYPHS, HEALTH_HINTS, HEALTH_SHORT } from '../../components/health';
import { Since, TimeAgo, useNow } from '../../components/TimeAgo';
import { agentHref, consoleHref, messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { isStale } from '../../store/link';
import { useApp } from '../../store/react';
import { AddAgent } from '../settings/AddAgentForm';
import { HealthSummary } from './HealthSummary';
import { matchesFilter, sortWorstFirst } from './sortAgents';

/**
 * What the row offers: Pair when a scan is needed (never on a connected agent), else Chat and Send.
 * While the agent is unreachable, its last known state decides.
 */
function RowActions({ agent }: { agent: AgentDTO }) {
  const { teamId, agentId, label } = agent;
  if ((agent.health.lastKnown ?? agent.health.health) === 'needs-scan') {
    return (
      <a className="button small" href={agentHref(teamId, agentId, 'pairing')} aria-label={`Pair ${label}`}>
        Pair
      </a>
    );
  }
  return (
    <>
      <a className="button small secondary" href={agentHref(teamId, agentId, 'chat')} aria-label={`Chat with ${label}`}>
        Chat
      </a>
      <a className="button small secondary" href={consoleHref(teamId, agentId)} aria-label={`Send from ${label}`}>
        Send
      </a>
    </>
  );
}

/** The agent's unread messages, a link to them (nothing when there are none). */
function UnreadLink({ teamId, agentId, label }: { teamId: string; agentId: string; label: string }) {
  const unread = useApp((s) => s.unreadByAgent[agentKey(teamId, agentId)] ?? 0);
  if (unread === 0) return null;
  const words = `${unread} unread message${unread === 1 ? '' : 's'}`;
  return (
    <a className="agent-unread" href={messagesHref(teamId, agentId)} aria-label={`${label}: ${words}`} title={words}>
      {unread} unread
    </a>
  );
}

/** `lastHeardAt` is set while the app is out of touch: the row shows unknown and when it last heard. */
function AgentRow({
  agent,
  teamLabel,
  now,
  lastHeardAt,
}: {
  agent: AgentDTO;
  teamLabel: string;
  now: number;
  lastHeardAt?: number | null;
}) {
  const h = agent.health;
  const stale = lastHeardAt !== undefined;
  const hint = stale ? '' : h.error ? `last poll failed: ${errorLine(h.error)}` : HEALTH_HINTS[h.health];
  return (
    <li className={`agent agent-${stale ? 'unknown' : h.health}`}>
      <span className="agent-health">
        <HealthBadge health={h.health} short stale={stale} />
      </span>
      <div className="agent-who">
        <p className="agent-name">
          <a className="agent-label" href={agentHref(agent.teamId, agent.agentId)}>
            {agent.label}
          </a>{' '}
          {agent.label !== agent.agentId && <code className="agent-id">{agent.agentId}</code>}{' '}
          <UnreadLink teamId={agent.teamId} agentId={agent.agentId} label={agent.label} />
        </p>
        <p className="agent-facts muted">
          <span>{teamLabel}</span>
          <span className="agent-phone">{h.phone ? `+${h.phone}` : 'no number'}</span>
          {!stale && <Since at={h.since} now={now} />}
          <span>
            {stale ? (
              lastHeardAt === null ? (
                'not heard from yet'
              ) : (
                <>
                  last heard <TimeAgo at={lastHeardAt} now={now} />
                </>
              )
            ) : h.checkedAt === null ? (
              'not polled yet'
            ) : (
              <>
                polled <TimeAgo at={h.checkedAt} now={now} />
              </>
            )}
          </span>
          {hint && <span className={h.error ? 'error' : undefined}>{hint}</span>}
          {!stale && h.lastKnown && (
            <span className="agent-last-known">
              last known: <span aria-hidden="true">{HEALTH_GLYPHS[h.lastKnown]}</span> {HEALTH_SHORT[h.lastKnown]}
            </span>
          )}
        </p>
      </div>
      <div className="agent-actions">
        <RowActions agent={agent} />
      </div>
    </li>
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
              <select id={pickId} value={team.teamId} onChange={(e) => setTeamId(e.target.value)}>
                {teams.map((t) => (
                  <option key={t.teamId} value={t.teamId}>
                    {t.label}
                  </option>
                ))}
              </select>
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
  const agents = useApp(useShallow((s) => Object.values(s.agents)));
  const [filter, setFilter] = useState('');
  const now = useNow(5000);
  const lastHeardAt = useApp((s) => (isStale(s) ? s.link.lastHeardAt : undefined));
  const filterId = useId();
  const [adding, setAdding] = useState(false);
  const teamLabel = useMemo(() => new Map(teams.map((t) => [t.teamId, t.label])), [teams]);
  const shown = useMemo(
    () => sortWorstFirst(agents, teams).filter((a) => matchesFilter(a, teamLabel.get(a.teamId) ?? a.teamId, filter)),
    [agents, teams, teamLabel, filter],
  );
  return (
    <section aria-labelledby="agents-title">
      <div className="page-head">
        <h2 id="agents-title">Agents</h2>
        <button type="button" className="secondary" aria-expanded={adding} onClick={() => setAdding((a) => !a)}>
          Add agent
        </button>
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
      {agents.length > 0 && <HealthSummary agents={agents} stale={lastHeardAt !== undefined} />}
      <div className="filter">
        <label htmlFor={filterId}>Filter agents</label>
        <input
          id={filterId}
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="name, id, team, phone or health"
        />
      </div>
      {agents.length === 0 ? (
        <EmptyState title="No agents yet.">
          <p>
            Add agent IDs to a team in <a href="#/settings">Settings</a>.
          </p>
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState title={`No agent matches “${filter}”.`} />
      ) : (
        <ul className="agents" aria-label={`${shown.length} agents, worst health first`}>
          {shown.map((a) => (
            <AgentRow
              key={agentKey(a.teamId, a.agentId)}
              agent={a}
              teamLabel={teamLabel.get(a.teamId) ?? a.teamId}
              now={now}
              lastHeardAt={lastHeardAt}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
