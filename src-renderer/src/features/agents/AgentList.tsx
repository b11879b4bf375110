// Teams and their agents with live health.
import { useShallow } from 'zustand/react/shallow';
import type { AgentDTO, HealthState } from '../../../../src-preload/contract';
import { useApp } from '../../store/react';
import { agentKey } from '../../store';

const WORDS: Record<HealthState, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting — recovers on its own',
  'needs-scan': 'Needs a QR scan',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

function AgentRow({ id }: { id: string }) {
  const agent = useApp((s) => s.agents[id]) as AgentDTO | undefined;
  if (!agent) return null;
  const h = agent.health;
  return (
    <li className="agent">
      <span className={`dot dot-${h.health}`} aria-hidden="true" />
      <span className="agent-label">{agent.label}</span>
      <span className="agent-health">{WORDS[h.health]}</span>
      {h.phone && <span className="agent-phone">+{h.phone}</span>}
    </li>
  );
}

export function AgentList() {
  const teams = useApp((s) => s.teams);
  const keys = useApp(useShallow((s) => Object.keys(s.agents)));
  return (
    <section aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      {teams.map((t) => {
        const mine = keys.filter((k) => k.startsWith(`${agentKey(t.teamId, '')}`));
        return (
          <article key={t.teamId} className="card" aria-label={`Team ${t.label}`}>
            <h3>
              {t.label} <span className="muted">key {t.keyHint}</span>
            </h3>
            {t.authError && <p role="alert" className="error">The service rejected this team's API key.</p>}
            {mine.length === 0 ? <p className="muted">No agents yet.</p> : (
              <ul className="agents" aria-live="polite">
                {mine.map((k) => (
                  <AgentRow key={k} id={k} />
                ))}
              </ul>
            )}
          </article>
        );
      })}
    </section>
  );
}
