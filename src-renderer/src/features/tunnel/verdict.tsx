// Words for a delivery's verdict, a refused request's reason and a forward result: badges never
// rely on colour alone.
import type { DeliverySummaryDTO, ForwardResultDTO, RefusedReason, Verdict } from '../../../../src-shared/contract';

const VERDICT_WORDS: Record<Verdict, string> = {
  verified: 'Verified',
  'verified-legacy-only': 'Verified — legacy signature only (allowed by the tunnel setting)',
  duplicate: 'Verified — duplicate (acknowledged, not passed on)',
  'missing-signature': 'Rejected — no signature',
  'signature-mismatch': 'Rejected — bad signature',
  'stale-timestamp': 'Rejected — timestamp too old',
  'future-timestamp': 'Rejected — timestamp in the future',
  'malformed-header': 'Rejected — unreadable signature header',
  'no-secret': 'Unverified — no signing secret',
  'legacy-only': 'Rejected — legacy signature only',
  simulated: 'Simulated',
};

const REFUSED_WORDS: Record<RefusedReason, string> = {
  'not-a-hook': 'Not a hook',
  'missing-signature': 'Refused — no signature',
  'signature-mismatch': 'Refused — bad signature',
  'stale-timestamp': 'Refused — timestamp too old',
  'future-timestamp': 'Refused — timestamp in the future',
  'malformed-header': 'Refused — unreadable signature header',
  'no-secret': 'Refused — no signing secret',
  'legacy-only': 'Refused — legacy signature only',
  'rate-limited': 'Refused — too many from this sender',
  'too-large': 'Refused — body too large',
  'bad-request': 'Refused — bad request',
  'storage-unavailable': 'Refused — storage unavailable',
  registering: 'Asked to retry — registration under way',
  'unknown-agent': 'Not a hook — unknown agent',
  busy: 'Asked to retry — receiver busy',
};

function verdictTone(v: Verdict): 'ok' | 'bad' | 'warn' | 'info' {
  if (v === 'verified') return 'ok';
  if (v === 'simulated') return 'info';
  return v === 'no-secret' || v === 'verified-legacy-only' || v === 'duplicate' ? 'warn' : 'bad';
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

const TYPE_WORDS: Record<string, string> = {
  text: 'Text',
  image: 'Image',
  document: 'Document',
  audio: 'Audio',
  video: 'Video',
};

/** What a delivery carries: "Text", "Image" …, or its event name. */
export function typeWords(d: Pick<DeliverySummaryDTO, 'messageType' | 'event'>): string {
  return d.messageType ? (TYPE_WORDS[d.messageType] ?? d.messageType) : d.event || 'Delivery';
}

/** "The exposure command …" — messages from the core start lower-case (they follow a colon there). */
export function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A delivery's last forward in a few words (the detail pane has the whole answer); `failed` when it did not reach the app. */
export function forwardWords(
  d: Pick<DeliverySummaryDTO, 'forwardStatus'>,
  last?: ForwardResultDTO,
): { words: string; failed: boolean } {
  // A forward seen live that got no answer (local app down) is a failure, not "not forwarded".
  if (last && last.status === null) return { words: 'App did not answer', failed: true };
  const s = last?.status ?? d.forwardStatus;
  if (s === null) return { words: 'Not forwarded', failed: false };
  return s >= 200 && s < 300
    ? { words: `Forwarded ${s}`, failed: false }
    : { words: `App answered ${s}`, failed: true };
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
