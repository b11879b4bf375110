// The filters over the agents list, in one row: words to find, a health (each with how many agents
// have it), a team (when there are several) and a label (when any agent has one); how many agents they
// leave, while any is set.
import { useId, useMemo } from 'react';
import { HEALTH_COUNT_ORDER } from '../../../../src-shared/words';
import { HEALTH_SHORT } from '../../components/health';
import { TeamSelect } from '../../components/TeamSelect';
import { selectHealthCounts } from '../../store/agents';
import { useApp } from '../../store/react';
import { isFiltering, labelCounts, type AgentFilter } from './agent-filter';

export function AgentFilterBar({
  filter,
  onChange,
  shown,
  total,
}: {
  filter: AgentFilter;
  onChange: (f: AgentFilter) => void;
  shown: number;
  total: number;
}) {
  const teams = useApp((s) => s.teams);
  const counts = useApp(selectHealthCounts);
  const labels = useApp(useMemo(labelCounts, []));
  const id = useId();
  return (
    <div className="filter-bar">
      <div className="filter">
        <label htmlFor={`${id}-text`}>Filter agents</label>
        <input
          id={`${id}-text`}
          type="search"
          value={filter.text}
          onChange={(e) => onChange({ ...filter, text: e.target.value })}
          placeholder="name, id, team, phone or health"
        />
      </div>
      <div className="filter">
        <label htmlFor={`${id}-health`}>Health</label>
        <select
          id={`${id}-health`}
          value={filter.health}
          onChange={(e) => onChange({ ...filter, health: e.target.value as AgentFilter['health'] })}
        >
          <option value="">Any health</option>
          {HEALTH_COUNT_ORDER.filter((h) => counts[h] > 0 || h === filter.health).map((h) => (
            <option key={h} value={h}>
              {HEALTH_SHORT[h]} ({counts[h]})
            </option>
          ))}
        </select>
      </div>
      {teams.length > 1 && (
        <div className="filter">
          <label htmlFor={`${id}-team`}>Team</label>
          <TeamSelect
            id={`${id}-team`}
            value={filter.teamId}
            onChange={(teamId) => onChange({ ...filter, teamId })}
            none="Every team"
          />
        </div>
      )}
      {(labels.length > 0 || filter.label !== '') && (
        <div className="filter">
          <label htmlFor={`${id}-label`}>Label</label>
          <select
            id={`${id}-label`}
            value={filter.label}
            onChange={(e) => onChange({ ...filter, label: e.target.value })}
          >
            <option value="">Any label</option>
            {filter.label !== '' && !labels.some(([l]) => l === filter.label) && (
              <option value={filter.label}>{filter.label} (0)</option>
            )}
            {labels.map(([l, n]) => (
              <option key={l} value={l}>
                {l} ({n})
              </option>
            ))}
          </select>
        </div>
      )}
      <p className="filter-count muted" role="status">
        {isFiltering(filter) ? `${shown} of ${total} agents` : ''}
      </p>
    </div>
  );
}
