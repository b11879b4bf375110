// The latest send from the form, right under its Send button: how it is going (sending, queued,
// retrying, sent with its message id) or what went wrong, with what it still allows (Cancel while it
// waits, Retry once it failed).
import type { SendRecord } from '../../store/console';
import { useApp } from '../../store/react';
import { SendError } from './SendError';
import { windowWords } from './SendMeter';
import { SendActions, progressWords, useWaitClock } from './SendHistory';

export function SendResult({ r }: { r: SendRecord }) {
  const budget = useApp((s) => s.sendBudgets[r.teamId]);
  const now = useWaitClock([r]);
  if (r.state === 'failed' && r.error) {
    return (
      <div className="send-result send-result-failed">
        <SendError error={r.error} retries={r.retries.length} teamId={r.teamId} agentId={r.agentId} />
        <div className="actions">
          <SendActions r={r} />
        </div>
      </div>
    );
  }
  return (
    <div className={`send-result send-result-${r.state}`}>
      <p role="status" className="send-progress">
        {r.state === 'sent' ? (
          <>
            <span aria-hidden="true">✓ </span>
            {progressWords(r, budget, now)} to <code>{r.to}</code> — message id <code>{r.messageId}</code>
          </>
        ) : (
          <>
            <span aria-live="off">{progressWords(r, budget, now)}</span>
            {r.state === 'queued' && (
              <span className="muted">
                {' '}
                — the send budget{budget ? ` (${budget.limit} sends per ${windowWords(budget.windowMs)})` : ''} is
                spent; it leaves on its own.
              </span>
            )}
            {r.state === 'retrying' && r.retries.at(-1)?.error?.kind === 'reconnecting' && (
              <span className="muted"> — it keeps retrying while the number reconnects.</span>
            )}
          </>
        )}
      </p>
      <SendActions r={r} />
    </div>
  );
}
