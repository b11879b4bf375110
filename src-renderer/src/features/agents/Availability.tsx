// The agent's availability over 24 h, 7 d and 30 d (health.availability): the share of the observed
// time it was connected, and how much of the window was observed (the time before its first record
// or while the app was not running counts neither up nor down). Read again when its health changes
// and every minute.
import { useState } from 'react';
import type { AgentDTO, ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { usePolling } from '../../components/usePolling';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { windowWords } from './availability-words';

export function Availability({ agent }: { agent: AgentDTO }) {
  const a = useApp((s) => s.availability[agentKey(agent.teamId, agent.agentId)]);
  const load = useApp((s) => s.loadAvailability);
  const [error, setError] = useState<ErrorDTO | null>(null);
  usePolling(
    async () => setError(await load(agent.teamId, agent.agentId)),
    60_000,
    true,
    `${agent.teamId}/${agent.agentId}/${agent.health.health}`,
  );
  return (
    <section className="card" aria-labelledby="availability-title">
      <h3 id="availability-title">Availability</h3>
      {error && <ErrorNotice error={error} />}
      {!a ? (
        !error && <p aria-busy="true">Reading the timeline…</p>
      ) : (
        <dl className="availability">
          {a.windows.map((w) => {
            const words = windowWords(w);
            return (
              <div key={w.windowMs}>
                <dt>{words.label}</dt>
                <dd>
                  {words.share === null ? (
                    <>
                      not observed <span className="muted">(no record in {words.label})</span>
                    </>
                  ) : (
                    <>
                      <strong>{words.share}</strong> connected <span className="muted">· {words.observed}</span>
                    </>
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      <p className="muted">
        Share of the observed time the agent was connected; time before its first record, or while the app was not
        running, is not counted.
      </p>
    </section>
  );
}
