// Words for a delivery's verdict and forward result: badges never rely on colour alone.
import type { DeliverySummaryDTO, ForwardResultDTO, VerificationResult } from '../../../../src-shared/contract';

export const VERDICT_WORDS: Record<VerificationResult, string> = {
  valid: 'Verified',
  invalid: 'Rejected — bad signature',
  missing: 'Rejected — no signature',
  expired: 'Rejected — timestamp too old',
  'no-secret': 'Unverified — no signing secret',
  simulated: 'Simulated',
  'legacy-only': 'Verified — legacy signature only',
};

export const VERDICTS = Object.keys(VERDICT_WORDS) as VerificationResult[];

export function verdictTone(v: VerificationResult): 'ok' | 'bad' | 'warn' | 'info' {
  return v === 'valid' ? 'ok' : v === 'simulated' ? 'info' : v === 'no-secret' || v === 'legacy-only' ? 'warn' : 'bad';
}

export function forwardWords(d: Pick<DeliverySummaryDTO, 'forwardStatus'>, last?: ForwardResultDTO): string {
  // A forward seen live that got no answer (local app down) is a failure, not "not forwarded".
  if (last && last.status === null) return `Local app did not answer${last.error ? ` — ${last.error}` : ''}`;
  const s = last?.status ?? d.forwardStatus;
  if (s === null) return 'Not forwarded';
  return s >= 200 && s < 300 ? `Forwarded — ${s}` : `Local app answered ${s}`;
}

export function attemptWords(f: ForwardResultDTO): string {
  if (f.status === null) return `No answer${f.error ? ` — ${f.error}` : ''}`;
  return `${f.status}${f.error ? ` — ${f.error}` : ''}`;
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
