// The agent's timeline: its health changes as the monitor kept them (health.history, then live
// health.changed events), and the incidents known to this window (alerts.list + alert events), newest first.
// A resolved incident is headed "Resolved" with its title (the monitor's words of the recovery, which
// say how long it lasted), and says when it closed: one length, the title's.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ErrorDTO, HealthHistoryEntryDTO } from '../../../../src-shared/contract';
import { incidentStateWord } from '../../../../src-shared/words';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { HEALTH_GLYPHS, HEALTH_WORDS } from '../../components/health';
import { agentKey } from '../../store/env';
import { TimeAgo } from '../../components/TimeAgo';
import { useApp } from '../../store/react';

const NO_HISTORY: HealthHistoryEntryDTO[] = [];
const HISTORY_SHOWN = 50;

function HealthChanges({ teamId, agentId, now }: { teamId: string; agentId: string; now: number }) {
  const key = agentKey(teamId, agentId);
  const entries = useApp((s) => s.healthHistory[key] ?? NO_HISTORY);
  const loaded = useApp((s) => key in s.healthHistory);
  const load = useApp((s) => s.loadHealthHistory);
  const [error, setError] = useState<ErrorDTO | null>(null);
  useEffect(() => {
    void load(teamId, agentId).then(setError);
  }, [load, teamId, agentId]);
  if (error) return <ErrorNotice error={error} />;
  if (!loaded) return <p aria-busy="true">Reading the health history…</p>;
  if (entries.length === 0) return <p className="muted">No health changes recorded yet.</p>;
  return (
    <ol className="timeline health-history" aria-label="Health changes">
      {entries.slice(0, HISTORY_SHOWN).map((e) => (
        <li key={`${e.at}-${e.health}`}>
          <span aria-hidden="true">{HEALTH_GLYPHS[e.health]}</span> {HEALTH_WORDS[e.previous]} →{' '}
          <strong>{HEALTH_WORDS[e.health]}</strong>{' '}
          <span className="muted">
            <TimeAgo at={e.at} now={now} />
            {e.state !== undefined && <> · state {e.state}</>}
          </span>
          {e.note && <p className="muted">{e.note}</p>}
        </li>
      ))}
    </ol>
  );
}

export function Timeline({ teamId, agentId, now }: { teamId: string; agentId: string; now: number }) {
  const items = useApp(useShallow((s) => s.incidentLog.filter((i) => i.teamId === teamId && i.agentId === agentId)));
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h3 id="timeline-title">Incident timeline</h3>
      <h4>Health changes</h4>
      <HealthChanges teamId={teamId} agentId={agentId} now={now} />
      <h4>Incidents</h4>
      {items.length === 0 ? (
        <EmptyState title="No incidents seen for this agent." />
      ) : (
        <ol className="timeline">
          {items.map((i) => (
            <li key={i.id} className={`incident sev-${i.severity}`}>
              <p>
                <strong>
                  {incidentStateWord(i)}: {i.title}
                </strong>
              </p>
              <p>{i.message}</p>
              <p className="muted">
                Opened <TimeAgo at={i.openedAt} now={now} />
                {i.acknowledgedAt !== null && (
                  <> · {i.acknowledgedBy ? `Acknowledged by ${i.acknowledgedBy}` : 'acknowledged'}</>
                )}
                {i.resolvedAt === null ? (
                  <> · still open</>
                ) : (
                  <>
                    {' '}
                    · {i.removed ? 'closed' : 'resolved'} <TimeAgo at={i.resolvedAt} now={now} />
                    {i.removed && ' (agent removed)'}
                  </>
                )}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
