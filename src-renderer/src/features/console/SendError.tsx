// What a failed send means and what to do: needs a QR scan (link to pairing), still reconnecting,
// the rate limit with its ceiling and a countdown, cancelled, or the service's own words.
import { useEffect, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { capitalized, rateLimitWords } from '../../components/errors';
import { agentHref } from '../../router/routes';

function Countdown({ seconds, children }: { seconds: number; children(left: number): string }) {
  const [left, setLeft] = useState(Math.max(0, Math.ceil(seconds)));
  useEffect(() => {
    setLeft(Math.max(0, Math.ceil(seconds)));
    const t = setInterval(() => setLeft((n) => (n <= 1 ? (clearInterval(t), 0) : n - 1)), 1000);
    return () => clearInterval(t);
  }, [seconds]);
  return <>{children(left)}</>;
}

export function SendError({
  error,
  retries,
  teamId,
  agentId,
}: {
  error: ErrorDTO;
  retries: number;
  teamId: string;
  agentId: string;
}) {
  if (error.kind === 'needs-scan') {
    return (
      <div role="alert" className="send-error">
        <strong>Needs a QR scan.</strong> The agent&apos;s WhatsApp link is not set up (HTTP {error.status ?? 409}).{' '}
        <a href={agentHref(teamId, agentId, 'pairing')}>Open pairing for {agentId}</a>
      </div>
    );
  }
  if (error.kind === 'reconnecting') {
    return (
      <div role="alert" className="send-error">
        <strong>
          Reconnecting — retried {retries} {retries === 1 ? 'time' : 'times'}
        </strong>
        , and the number did not come back while it was retrying. It recovers on its own; Retry in a moment. Your
        message is still here.
      </div>
    );
  }
  if (error.kind === 'rate-limited') {
    const head = capitalized(rateLimitWords(error));
    return (
      <div role="alert" className="send-error">
        <Countdown seconds={error.retryAfterSec ?? 0}>
          {(left) => (left > 0 ? `${head} — you can send again in ${left} s.` : `${head} — you can send again now.`)}
        </Countdown>
      </div>
    );
  }
  if (error.kind === 'aborted') {
    return (
      <p role="status" className="send-cancelled">
        Cancelled — this message was not sent.
      </p>
    );
  }
  return <ErrorNotice error={error} />;
}

/** Which input a validation error belongs next to. */
export function errorField(error: ErrorDTO): 'to' | 'text' | 'url' | 'filename' | null {
  if (error.kind !== 'invalid-request' && error.kind !== 'validation') return null;
  const f = `${error.field ?? ''} ${error.code}`.toLowerCase();
  if (/\bto\b|recipient|phone|jid/.test(f)) return 'to';
  if (/url/.test(f)) return 'url';
  if (/filename/.test(f)) return 'filename';
  return 'text';
}
