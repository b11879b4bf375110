// The latest send of a form (the console's, the Messages composer's) and what it took from the form:
// cleared once that send is queued or sent (unless something new was typed meanwhile), and put back
// into an empty field when that send then fails or is cancelled. Nothing typed is lost on error.
import { useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { SendRecord } from '../../store/console';

type Field = readonly [value: string, set: Dispatch<SetStateAction<string>>];

/** A fresh clientRef for a send from a form. */
const newClientRef = () => `send-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * `history` is the send history the form's sends land in. Answers the form's latest send (null
 * before one, or after `forget`), and `take`: called as a send starts with the fields it takes
 * (each with its value now and its setter), it answers the clientRef to send with.
 */
export function useSendDraft(history: readonly SendRecord[]): {
  last: SendRecord | null;
  take(fields: readonly Field[]): string;
  forget(): void;
} {
  const [lastRef, setLastRef] = useState<string | null>(null);
  const last = (lastRef !== null && history.find((r) => r.clientRef === lastRef)) || null;
  const state = last?.state;
  const took = useRef<{ clientRef: string; fields: readonly Field[]; cleared: boolean } | null>(null);
  useEffect(() => {
    const t = took.current;
    if (!t || t.clientRef !== lastRef || !state) return;
    if ((state === 'queued' || state === 'sent') && !t.cleared) {
      t.cleared = true;
      for (const [value, set] of t.fields) set((v) => (v === value ? '' : v));
    } else if (state === 'failed' && t.cleared) {
      t.cleared = false;
      for (const [value, set] of t.fields) set((v) => (v === '' ? value : v));
    }
  }, [lastRef, state]);
  return {
    last,
    take: (fields) => {
      const clientRef = newClientRef();
      took.current = { clientRef, fields, cleared: false };
      setLastRef(clientRef);
      return clientRef;
    },
    forget: () => setLastRef(null),
  };
}
