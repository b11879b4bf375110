// The team's send budget (limit from X-RateLimit-Limit, sends in the window) as a bar that turns to
// the warning colour when nearly spent and the alarm colour when spent, and the team's queue of sends
// waiting for room (every agent of the team, from this window or elsewhere), each cancellable, with
// how many of them are the chosen agent's.
import { useState } from 'react';
import type { QueuedSendDTO, SendBudgetDTO } from '../../../../src-shared/contract';
import { errorLine } from '../../components/errors';
import { useGate } from '../../components/allowed';
import { useNow } from '../../components/TimeAgo';
import { usePolling } from '../../components/usePolling';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';

const POLL_MS = 2000;
const NO_QUEUE: QueuedSendDTO[] = [];
/** From this share of the budget used, the bar warns. */
const NEARLY = 0.8;

export type BudgetLevel = 'ok' | 'nearly' | 'spent';

function budgetLevel(b: Pick<SendBudgetDTO, 'used' | 'limit'>): BudgetLevel {
  if (b.used >= b.limit) return 'spent';
  return b.used >= b.limit * NEARLY ? 'nearly' : 'ok';
}

export function windowWords(windowMs: number): string {
  const sec = Math.round(windowMs / 1000);
  return sec === 60 ? 'minute' : `${sec} s`;
}

export function SendMeter({ teamId, agentId }: { teamId: string; agentId: string }) {
  const budget = useApp((s) => s.sendBudgets[teamId]);
  const agents = useApp((s) => s.agents);
  const nameOf = (a: string) => agents[agentKey(teamId, a)]?.label || a;
  const load = useApp((s) => s.loadSendBudget);
  const cancel = useApp((s) => s.cancelQueuedSend);
  const cancelGate = useGate('send.cancel');
  const [msg, setMsg] = useState<string | null>(null);
  usePolling(() => load(teamId), POLL_MS);
  // The waits count down between two reads of the budget.
  useNow(budget?.queued?.length ? 1000 : 3_600_000);
  const now = Date.now();
  if (!budget) return <p className="muted send-meter">Send budget not known yet.</p>;
  const queue = budget.queued ?? NO_QUEUE;
  const level = budgetLevel(budget);
  const used = Math.min(budget.used, budget.limit);
  const words = `${budget.used} of ${budget.limit} sends used in the last ${windowWords(budget.windowMs)}`;
  const mine = agentId === '' ? 0 : queue.filter((q) => q.agentId === agentId).length;
  return (
    <section className={`send-meter send-meter-${level}`} aria-labelledby="meter-title">
      <h3 id="meter-title">Send budget</h3>
      <div className="meter-row">
        <div
          className="meter"
          role="meter"
          aria-label="Send budget used"
          aria-valuemin={0}
          aria-valuemax={budget.limit}
          aria-valuenow={used}
          aria-valuetext={words}
        >
          <div className="meter-fill" style={{ width: `${Math.round((used / Math.max(1, budget.limit)) * 100)}%` }} />
        </div>
        <p className="meter-words">
          {words}
          {level === 'spent' && (
            <>
              {' — '}
              <strong>budget spent</strong>: new sends wait in the queue and leave on their own
            </>
          )}
        </p>
      </div>
      {queue.length > 0 && (
        <>
          <h4>Waiting in the team&apos;s queue ({queue.length})</h4>
          {agentId !== '' && (
            <p className="hint queue-mine">
              {mine === queue.length
                ? `All from ${nameOf(agentId)}.`
                : `${mine} from ${nameOf(agentId)}, ${queue.length - mine} from other agents of the team.`}
            </p>
          )}
          <ul className="send-queue">
            {queue.map((q) => (
              <li key={q.id}>
                to <code>{q.to}</code> from {nameOf(q.agentId)}, leaves in about{' '}
                <span aria-live="off">{Math.max(0, Math.ceil((budget.readAt + q.etaMs - now) / 1000))}</span> s{' '}
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Cancel queued send to ${q.to}`}
                  onClick={async () => {
                    const e = await cancel(teamId, q.id);
                    setMsg(e ? errorLine(e) : `Cancelled the send to ${q.to}.`);
                  }}
                  disabled={!cancelGate.allowed}
                  {...cancelGate.props}
                >
                  Cancel
                </button>
                {cancelGate.hiddenNote}
              </li>
            ))}
          </ul>
        </>
      )}
      {msg && <p role="status">{msg}</p>}
    </section>
  );
}
