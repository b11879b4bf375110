// A team chosen from the teams, by the label people gave it: the Agents screen's filter, the console's and the
// add-agent panel's team. `none` is the choice of no team ('' as the value), when there is one.
import { useApp } from '../store/react';

export function TeamSelect({
  id,
  value,
  onChange,
  none,
}: {
  id: string;
  value: string;
  onChange(teamId: string): void;
  /** The words of the option of no team, or null for none. */
  none: string | null;
}) {
  const teams = useApp((s) => s.teams);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {none !== null && <option value="">{none}</option>}
      {teams.map((t) => (
        <option key={t.teamId} value={t.teamId}>
          {t.label}
        </option>
      ))}
    </select>
  );
}
