// Sends made from this window, newest first, with message ids and live progress.
import { useState } from 'react';
import type { SendRecord } from '../../store/console';
import { describeError } from './error-words';
import { useApp } from '../../store/react';

export function progressWords(r: SendRecord): string {
  switch (r.state) {
    case 'sending':
      return 'Sending…';
    case 'queued':
      return `Queued${r.queue?.position !== undefined ? ` (position ${r.queue.position}` : ' ('}${r.queue?.waitMs !== undefined ? `, about ${Math.ceil(r.queue.waitMs / 1000)} s)` : ')'}`;
    case 'retrying': {
      const last = r.retries[r.retries.length - 1];
      const kind = last?.error?.kind === 'reconnecting' ? 'Reconnecting — retrying' : 'Retrying';
      const next = last?.delayMs !== undefined ? `, next in ${Math.ceil(last.delayMs / 1000)} s` : '';
      return `${kind} (attempt ${last?.attempt ?? r.retries.length}${next})`;
    }
    case 'sent':
      return r.retries.length ? `Sent after ${r.retries.length} ${r.retries.length === 1 ? 'retry' : 'retries'}` : 'Sent';
    case 'failed':
      return r.error ? `Failed — ${describeError(r.error)}` : 'Failed';
  }
}

/** Cancels one queued send by the id its send.progress 'queued' event carried. */
function CancelQueued({ r }: { r: SendRecord }) {
  const cancel = useApp((s) => s.cancelQueuedSend);
  const [problem, setProblem] = useState<string | null>(null);
  const queuedId = r.queue?.queuedId;
  if (r.state !== 'queued' || !queuedId) return null;
  return (
    <>
      {' '}
      <button
        type="button"
        className="secondary small"
        aria-label={`Cancel the queued send to ${r.to}`}
        onClick={() => void cancel(r.teamId, queuedId).then((e) => setProblem(e ? describeError(e) : null))}
      >
        Cancel
      </button>
      {problem && <span className="error"> {problem}</span>}
    </>
  );
}

export function SendHistory({ teamId, agentId }: { teamId: string; agentId: string }) {
  const all = useApp((s) => s.sendHistory);
  const rows = all.filter((r) => r.teamId === teamId && r.agentId === agentId);
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">Sent from here</h3>
      {rows.length === 0 ? (
        <p className="muted">Nothing sent yet.</p>
      ) : (
        <table className="send-history">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">To</th>
              <th scope="col">Type</th>
              <th scope="col">Content</th>
              <th scope="col">Result</th>
              <th scope="col">Message id</th>
            </tr>
          </thead>
          <tbody aria-live="polite">
            {rows.map((r) => (
              <tr key={r.clientRef} data-state={r.state}>
                <td>{new Date(r.at).toLocaleTimeString()}</td>
                <td>
                  <code>{r.to}</code>
                </td>
                <td>{r.kind}</td>
                <td>{r.summary}</td>
                <td>
                  {progressWords(r)}
                  <CancelQueued r={r} />
                </td>
                <td>{r.messageId ? <code>{r.messageId}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
