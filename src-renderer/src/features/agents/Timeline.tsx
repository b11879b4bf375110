// The agent's incident timeline. The contract has no history request, so this shows the incidents
// known to this window (alerts.list at load + alert events since), newest first.
import { useShallow } from 'zustand/react/shallow';
import type { IncidentDTO } from '../../../../src-preload/contract';
import { EmptyState } from '../../components/EmptyState';
import { TimeAgo } from '../../components/TimeAgo';
import { formatSpan } from '../../components/time';
import { useApp } from '../../store/react';

const SEVERITY_WORD: Record<IncidentDTO['severity'], string> = { urgent: 'Urgent', warning: 'Warning', info: 'Info' };

export function Timeline({ teamId, agentId, now }: { teamId: string; agentId: string; now: number }) {
  const items = useApp(useShallow((s) => s.incidentLog.filter((i) => i.teamId === teamId && i.agentId === agentId)));
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h3 id="timeline-title">Incident timeline</h3>
      {items.length === 0 ? (
        <EmptyState title="No incidents seen for this agent." />
      ) : (
        <ol className="timeline">
          {items.map((i) => (
            <li key={i.id} className={`incident sev-${i.severity}`}>
              <p>
                <strong>
                  {SEVERITY_WORD[i.severity]}: {i.title}
                </strong>{' '}
                <span className="muted">({i.kind})</span>
              </p>
              <p>{i.message}</p>
              <p className="muted">
                Opened <TimeAgo at={i.openedAt} now={now} />
                {i.acknowledgedAt !== null && <> · acknowledged</>}
                {i.resolvedAt !== null ? <> · resolved after {formatSpan(i.resolvedAt - i.openedAt)}</> : <> · still open</>}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
