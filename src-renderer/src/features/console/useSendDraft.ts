// What a send took from a form (the console's, the Messages composer's): cleared from the form once
// that send is queued or sent (unless something new was typed meanwhile), and put back into an empty
// field when that send then fails or is cancelled. Nothing typed is lost on error.
import { useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { SendRecord } from '../../store/console';

type Field = readonly [value: string, set: Dispatch<SetStateAction<string>>];

/**
 * `state` is the state of the form's latest send (`clientRef`). Returns what to call as a send
 * starts, with the fields it takes (each with its value now and its setter).
 */
export function useSendDraft(
  clientRef: string | null,
  state: SendRecord['state'] | undefined,
): (clientRef: string, fields: readonly Field[]) => void {
  const took = useRef<{ clientRef: string; fields: readonly Field[]; cleared: boolean } | null>(null);
  useEffect(() => {
    const t = took.current;
    if (!t || t.clientRef !== clientRef || !state) return;
    if ((state === 'queued' || state === 'sent') && !t.cleared) {
      t.cleared = true;
      for (const [value, set] of t.fields) set((v) => (v === value ? '' : v));
    } else if (state === 'failed' && t.cleared) {
      t.cleared = false;
      for (const [value, set] of t.fields) set((v) => (v === '' ? value : v));
    }
  }, [clientRef, state]);
  return (ref, fields) => {
    took.current = { clientRef: ref, fields, cleared: false };
  };
}
