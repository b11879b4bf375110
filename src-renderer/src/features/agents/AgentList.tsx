// Agents home: every agent of every team, worst health first, with a filter.
import { useId, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AgentDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { HealthBadge } from '../../components/HealthBadge';
import { Since, TimeAgo, useNow } from '../../components/TimeAgo';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { isStale } from '../../store/link';
import { useApp } from '../../store/react';
import { matchesFilter, sortWorstFirst } from './sortAgents';

/** `lastHeardAt` is set while the app is out of touch: the row shows unknown and when it last heard. */
function AgentRow({ agent, teamLabel, now, lastHeardAt }: { agent: AgentDTO; teamLabel: string; now: number; lastHeardAt?: number | null }) {
  const h = agent.health;
  const stale = lastHeardAt !== undefined;
  return (
    <li className={`agent agent-${stale ? 'unknown' : h.health}`}>
      <HealthBadge health={h.health} stale={stale} />
      <a className="agent-label" href={agentHref(agent.teamId, agent.agentId)}>
        {agent.label}
      </a>
      <span className="muted">{teamLabel}</span>
      <span className="agent-phone">{h.phone ? `+${h.phone}` : <span className="muted">no number</span>}</span>
      <span className="muted">{stale ? null : <Since at={h.since} now={now} />}</span>
      <span className="muted">
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
      {h.error && <span className="error">last poll failed: {h.error.code}</span>}
    </li>
  );
}

export function AgentList() {
  const teams = useApp((s) => s.teams);
  const agents = useApp(useShallow((s) => Object.values(s.agents)));
  const [filter, setFilter] = useState('');
  const now = useNow(5000);
  const lastHeardAt = useApp((s) => (isStale(s) ? s.link.lastHeardAt : undefined));
  const filterId = useId();
  const teamLabel = useMemo(() => new Map(teams.map((t) => [t.teamId, t.label])), [teams]);
  const shown = useMemo(
    () => sortWorstFirst(agents, teams).filter((a) => matchesFilter(a, teamLabel.get(a.teamId) ?? a.teamId, filter)),
    [agents, teams, teamLabel, filter],
  );
  return (
    <section aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      {teams
        .filter((t) => t.authError)
        .map((t) => (
          <p key={t.teamId} role="alert" className="notice notice-error">
            <strong>⚠ The service rejected the API key of team {t.label} (key rejected).</strong> Its agents are not being checked. Add the team again
            with a current key in <a href="#/settings">Settings</a>.
          </p>
        ))}
      <div className="filter">
        <label htmlFor={filterId}>Filter agents</label>
        <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="name, team, phone or health" />
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
            <AgentRow key={agentKey(a.teamId, a.agentId)} agent={a} teamLabel={teamLabel.get(a.teamId) ?? a.teamId} now={now} lastHeardAt={lastHeardAt} />
          ))}
        </ul>
      )}
    </section>
  );
}
