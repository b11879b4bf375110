// One word for a session status, in the app's vocabulary. Decided from needsScan/linked/connected,
// never from the state name (ASSUMPTION A-STATE: unknown states are shown verbatim alongside).
import type { SessionStatus } from '../core/api/types';

export type HealthWord = 'connected' | 'reconnecting' | 'pairing' | 'needs-scan' | 'unknown';

export function healthWord(s: SessionStatus): HealthWord {
  if (s.connected) return 'connected';
  if (s.needsScan) return s.qr ? 'pairing' : 'needs-scan';
  if (s.linked) return 'reconnecting';
  return 'unknown';
}

export function yesNo(b: boolean | undefined): string {
  return b === undefined ? '-' : b ? 'yes' : 'no';
}
