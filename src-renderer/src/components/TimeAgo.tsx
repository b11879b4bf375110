// "12 s ago" with the exact time in a tooltip and a <time> element. Re-renders on its own.
import { useEffect, useState } from 'react';
import { formatAgo, formatClock, formatSpan } from './time';

/** The current time, refreshed every `everyMs`. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

export function TimeAgo({ at, now }: { at: number; now?: number }) {
  const tick = useNow(now === undefined ? 5000 : 3_600_000);
  const current = now ?? tick;
  return (
    <time dateTime={new Date(at).toISOString()} title={formatClock(at)}>
      {formatAgo(at, current)}
    </time>
  );
}

export function Since({ at, now }: { at: number; now?: number }) {
  const tick = useNow(now === undefined ? 5000 : 3_600_000);
  const current = now ?? tick;
  return (
    <time dateTime={new Date(at).toISOString()} title={`since ${formatClock(at)}`}>
      for {formatSpan(current - at)}
    </time>
  );
}
