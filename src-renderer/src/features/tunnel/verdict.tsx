// Badges for a delivery's verdict and a refused request's reason, in the shared words
// (src-shared/words, the command line's too): badges never rely on colour alone.
import type { DeliverySummaryDTO, ForwardResultDTO, RefusedReason, Verdict } from '../../../../src-shared/contract';
import { REFUSED_WORDS, VERDICT_WORDS } from '../../../../src-shared/words';

export { attemptWords, deliveryTypeWords as typeWords, forwardWords } from '../../../../src-shared/words';

function verdictTone(v: Verdict): 'ok' | 'bad' | 'warn' | 'info' {
  if (v === 'verified') return 'ok';
  if (v === 'simulated') return 'info';
  return v === 'verified-legacy-only' || v === 'duplicate' ? 'warn' : 'bad';
}

function refusedTone(r: RefusedReason): 'bad' | 'warn' {
  return r === 'not-a-hook' ||
    r === 'unknown-agent' ||
    r === 'rate-limited' ||
    r === 'storage-unavailable' ||
    r === 'registering' ||
    r === 'busy'
    ? 'warn'
    : 'bad';
}

export function VerdictBadge({ d }: { d: Pick<DeliverySummaryDTO, 'verdict'> }) {
  return <span className={`badge tone-${verdictTone(d.verdict)}`}>{VERDICT_WORDS[d.verdict]}</span>;
}

export function RefusedBadge({ reason }: { reason: RefusedReason }) {
  return <span className={`badge tone-${refusedTone(reason)}`}>{REFUSED_WORDS[reason]}</span>;
}

/** "The exposure command …" — messages from the core start lower-case (they follow a colon there). */
export function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A forward failed when there was no answer or the local app answered 5xx. */
const forwardFailed = (f: ForwardResultDTO): boolean => f.status === null || f.status >= 500;

/** Since when the local app has been failing (the start of the trailing run of failures), or null. */
export function downSince(log: ForwardResultDTO[]): number | null {
  let since: number | null = null;
  for (let i = log.length - 1; i >= 0; i--) {
    const f = log[i];
    if (!f || !forwardFailed(f)) break;
    since = f.at;
  }
  return since;
}
