// Calls fn now and then every `ms` while mounted (and while `active`); never overlaps two calls.
import { useEffect, useRef } from 'react';

/** `restartOn`: when it changes, fn runs at once and the interval starts over. */
export function usePolling(fn: () => Promise<unknown>, ms: number, active = true, restartOn: unknown = null): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        await ref.current();
      } finally {
        if (!stopped) timer = setTimeout(() => void tick(), ms);
      }
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [ms, active, restartOn]);
}
