// An agent's sends from this install, newest first: what the send log holds (the console's, the
// Messages composer's and the CLI's, across restarts) and this window's sends still going out, with
// message ids, live progress (a queued send's place and wait as the send budget reads them now), and
// what each one still allows: Cancel while it waits (queued or between retries), Retry once it failed.
import { useEffect, useState } from 'react';
import { agentSends, contentOf, queuePlace, type SendBudget, type SendRecord } from '../../store/console';
import { agentKey } from '../../store/env';
import { useNow } from '../../components/TimeAgo';
import { capitalized, errorLine, rateLimitWords } from '../../components/errors';
import { useApp } from '../../store/react';
import { sentByWords } from '../../../../src-shared/words';
import { useGate } from '../../components/allowed';

/** Whole seconds left until `at` (never below 0). */
const secondsUntil = (at: number, now: number): number => Math.max(0, Math.ceil((at - now) / 1000));

/**
 * The time to word waits by: read at every render (a render caused by new figures counts from the
 * moment they came), and a render every second while any of `rows` waits, so its countdown ticks.
 */
export function useWaitClock(rows: readonly SendRecord[]): number {
  useNow(rows.some(isWaiting) ? 1000 : 3_600_000);
  return Date.now();
}

/**
 * How a send is going at `now`: a queued one by its place and the wait left in `budget` (its team's
 * send budget), one between retries by the time left to its next try.
 */
export function progressWords(r: SendRecord, budget: SendBudget | undefined, now: number): string {
  switch (r.state) {
    case 'sending':
      return 'Sending…';
    case 'queued': {
      const { position, leavesAt } = queuePlace(r, budget);
      const where = [
        position !== undefined ? `position ${position}` : '',
        leavesAt !== undefined ? `about ${secondsUntil(leavesAt, now)} s` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return where ? `Queued (${where})` : 'Queued';
    }
    case 'retrying': {
      const last = r.retries[r.retries.length - 1];
      const why =
        last?.error?.kind === 'reconnecting'
          ? 'Reconnecting — retrying'
          : last?.error?.kind === 'rate-limited'
            ? `${capitalized(rateLimitWords(last.error))} — retrying`
            : 'Retrying';
      const next = last?.delayMs !== undefined ? `, next in ${secondsUntil(last.at + last.delayMs, now)} s` : '';
      return `${why} (attempt ${last?.attempt ?? r.retries.length}${next})`;
    }
    case 'sent':
      return r.retries.length
        ? `Sent after ${r.retries.length} ${r.retries.length === 1 ? 'retry' : 'retries'}`
        : 'Sent';
    case 'failed':
      if (r.error?.kind === 'aborted') return 'Cancelled';
      return r.error ? `Failed — ${errorLine(r.error)}` : 'Failed';
  }
}

/** Whether a send still waits (and can be stopped): in the queue or between retries. */
function isWaiting(r: SendRecord): boolean {
  return r.state === 'queued' || r.state === 'retrying';
}

/** Cancel while the send waits, Retry once it failed (not twice). */
export function SendActions({ r }: { r: SendRecord }) {
  const stop = useApp((s) => s.stopSend);
  const retry = useApp((s) => s.retrySend);
  const [problem, setProblem] = useState<string | null>(null);
  const stopGate = useGate('send.stop');
  const retryGate = useGate(r.via === 'messages' ? 'messages.send' : 'send.message');
  if (isWaiting(r)) {
    return (
      <>
        <button
          type="button"
          className="secondary small"
          aria-label={`Cancel the send to ${r.to}`}
          onClick={() => void stop(r.clientRef).then((e) => setProblem(e ? errorLine(e) : null))}
          disabled={!stopGate.allowed}
          {...stopGate.props}
        >
          Cancel
        </button>
        {stopGate.hiddenNote}
        {problem && <span className="error"> {problem}</span>}
      </>
    );
  }
  if (r.state === 'failed' && !r.retriedAs) {
    return (
      <>
        <button
          type="button"
          className="secondary small"
          aria-label={`Retry the send to ${r.to}`}
          onClick={() => void retry(r.clientRef)}
          disabled={!retryGate.allowed}
          {...retryGate.props}
        >
          Retry
        </button>
        {retryGate.hiddenNote}
      </>
    );
  }
  return null;
}

/** The URL an image or document send carried, under its caption or file name. */
function MediaUrl({ r }: { r: SendRecord }) {
  const url = r.args.imageUrl ?? r.args.documentUrl;
  if (!url || url === contentOf(r.args)) return null;
  return (
    <span className="send-url">
      <code>{url}</code>
    </span>
  );
}

/** What a send carried: its summary, wrapping (and the media URL); when that was cut short, everything sent a click away. */
function Content({ r }: { r: SendRecord }) {
  const full = contentOf(r.args);
  if (full === r.summary)
    return (
      <>
        {r.summary}
        <MediaUrl r={r} />
      </>
    );
  return (
    <>
      {r.summary}
      <MediaUrl r={r} />
      <details className="send-full">
        <summary>All {full.length.toLocaleString()} characters</summary>
        <pre tabIndex={0} aria-label={`Everything sent to ${r.to}`}>
          {full}
        </pre>
      </details>
    </>
  );
}

const VIA_WORDS: Record<NonNullable<SendRecord['via']>, string> = {
  console: 'console',
  messages: 'Messages',
  cli: 'command line',
};

export function SendHistory({ teamId, agentId }: { teamId: string; agentId: string }) {
  const all = useApp((s) => s.sendHistory);
  const logged = useApp((s) => s.sentLog[agentKey(teamId, agentId)]);
  const loadSentLog = useApp((s) => s.loadSentLog);
  const budget = useApp((s) => s.sendBudgets[teamId]);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    void loadSentLog(teamId, agentId).then((e) => setProblem(e ? errorLine(e) : null));
  }, [loadSentLog, teamId, agentId]);
  const rows = agentSends(all, logged, teamId, agentId);
  const now = useWaitClock(rows);
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">Sent from here</h3>
      {problem && <p role="alert">The send log could not be read — {problem}</p>}
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
                <td className="send-time">{new Date(r.at).toLocaleTimeString()}</td>
                <td className="send-to">
                  <code>{r.to}</code>
                </td>
                <td>
                  {r.kind}
                  {r.via && r.via !== 'console' && <span className="muted"> · from {VIA_WORDS[r.via]}</span>}
                  {r.sentBy && <span className="muted"> · {sentByWords(r.sentBy)}</span>}
                </td>
                <td className="send-content">
                  <Content r={r} />
                </td>
                <td>
                  <span
                    className={r.error?.kind === 'aborted' ? 'send-state cancelled' : 'send-state'}
                    aria-live={isWaiting(r) ? 'off' : undefined}
                  >
                    {progressWords(r, budget, now)}
                  </span>{' '}
                  <SendActions r={r} />
                </td>
                <td className="send-id">{r.messageId ? <code>{r.messageId}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
