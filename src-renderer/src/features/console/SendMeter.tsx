// The team's send budget (limit from X-RateLimit-Limit, sends in the window) and the queue of
// sends waiting for room, each cancellable.
import { useState } from 'react';
import type { QueuedSendDTO } from '../../../../src-shared/contract';
import { usePolling } from '../../components/usePolling';
import { describeError } from './error-words';
import { useApp } from '../../store/react';

const POLL_MS = 2000;
const NO_QUEUE: QueuedSendDTO[] = [];

export function SendMeter({ teamId }: { teamId: string }) {
  const budget = useApp((s) => s.sendBudgets[teamId]);
  const load = useApp((s) => s.loadSendBudget);
  const cancel = useApp((s) => s.cancelQueuedSend);
  const [msg, setMsg] = useState<string | null>(null);
  usePolling(() => load(teamId), POLL_MS);
  if (!budget) return <p className="muted">Send budget not known yet.</p>;
  const queue = budget.queued ?? NO_QUEUE;
  const windowSec = Math.round(budget.windowMs / 1000);
  const spent = budget.used >= budget.limit;
  return (
    <section className="send-meter card" aria-labelledby="meter-title">
      <h3 id="meter-title">Send budget</h3>
      <p>
        <meter min={0} max={budget.limit} value={Math.min(budget.used, budget.limit)} aria-label="Sends used" />{' '}
        {budget.used} of {budget.limit} sends in the last {windowSec === 60 ? 'minute' : `${windowSec} s`}
        {spent && <strong> — budget spent; new sends wait in the queue</strong>}
      </p>
      {queue.length > 0 && (
        <>
          <h4>Queued ({queue.length})</h4>
          <ul className="send-queue">
            {queue.map((q) => (
              <li key={q.id}>
                to <code>{q.to}</code> from {q.agentId}, leaves in about {Math.ceil(q.etaMs / 1000)} s{' '}
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Cancel queued send to ${q.to}`}
                  onClick={async () => {
                    const e = await cancel(teamId, q.id);
                    setMsg(e ? describeError(e) : `Cancelled the send to ${q.to}.`);
                  }}
                >
                  Cancel
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {msg && <p role="status">{msg}</p>}
    </section>
  );
}
