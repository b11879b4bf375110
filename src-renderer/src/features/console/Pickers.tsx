// Team and agent pickers: labels as people named them, the agent's id in small print below.
import { useId } from 'react';
import { TeamSelect } from '../../components/TeamSelect';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';

export function Pickers({
  teamId,
  agentId,
  onTeam,
  onAgent,
}: {
  teamId: string;
  agentId: string;
  onTeam(t: string): void;
  onAgent(a: string): void;
}) {
  const teams = useApp((s) => s.teams);
  const agents = useApp((s) => s.agents);
  const ids = { team: useId(), agent: useId(), agentHint: useId() };
  const team = teams.find((t) => t.teamId === teamId);
  const labelOf = (a: string) => agents[agentKey(teamId, a)]?.label ?? a;
  const showId = agentId !== '' && labelOf(agentId) !== agentId;
  return (
    <div className="console-pickers">
      <div className="picker">
        <label htmlFor={ids.team}>Team</label>
        <TeamSelect
          id={ids.team}
          value={teamId}
          onChange={onTeam}
          none={teams.length !== 1 || teamId === '' ? 'Choose a team' : null}
        />
      </div>
      <div className="picker">
        <label htmlFor={ids.agent}>Agent</label>
        <select
          id={ids.agent}
          value={agentId}
          onChange={(e) => onAgent(e.target.value)}
          disabled={!team}
          aria-describedby={showId ? ids.agentHint : undefined}
        >
          <option value="">Choose an agent</option>
          {team?.agentIds.map((a) => (
            <option key={a} value={a}>
              {labelOf(a)}
            </option>
          ))}
        </select>
        {showId && (
          <span id={ids.agentHint} className="picker-id">
            id <code>{agentId}</code>
          </span>
        )}
      </div>
    </div>
  );
}
