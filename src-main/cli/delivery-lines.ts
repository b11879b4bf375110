// A delivery, a forward and a refused request in one line each, as every command prints them (`deliveries`,
// `listen`, `trigger`): the contract's DTOs in the shared words (src-shared/words.ts), what a sender wrote made
// safe for the terminal (src-shared/terminal-text.ts).
import type { DeliverySummaryDTO, ForwardResultDTO, RefusedRequestDTO } from '../../src-shared/contract';
import { attemptWords, deliveryTypeWords, forwardWords, REFUSED_WORDS, verdictWords } from '../../src-shared/words';
import { terminalSafe } from '../../src-shared/terminal-text';
import { redactCredentials } from '../../src-shared/url';
import { isoTime } from './companion-run';

/** What a sender wrote (headers, body, ids, a path), made safe for the terminal (src-shared/terminal-text). */
const safe = (text: string): string => terminalSafe(text);

/** "01J…  2026-…  agent  Verified  Text  +1555…  Forwarded 200", plus the service's id when it gave one. */
export function summaryLine(d: DeliverySummaryDTO): string {
  return [
    d.id,
    isoTime(d.receivedAt),
    d.agentId ?? '-',
    verdictWords(d.verdict),
    deliveryTypeWords(d),
    d.from ? `+${d.from.replace(/^\+/, '')}` : '-',
    forwardWords(d).words,
    ...(d.serviceId ? [`(service: ${safe(d.serviceId)})`] : []),
  ].join('  ');
}

/** "  → forward to http://…: 200 in 12 ms", "  → replay re-signed to …: No answer — …". */
export function forwardLine(f: ForwardResultDTO): string {
  return `  → ${f.replay ? `replay ${f.replay}` : 'forward'} to ${redactCredentials(f.url)}: ${attemptWords(f)} in ${Math.round(f.durationMs)} ms`;
}

/** "2026-…  Refused — bad signature  401  POST /hooks/a1  from 127.0.0.1 (12 bytes): <the last step>". */
export function refusedLine(r: RefusedRequestDTO): string {
  const why = safe(r.detail.slice(r.detail.lastIndexOf('\n') + 1));
  return `${r.id}  ${isoTime(r.at)}  ${REFUSED_WORDS[r.reason] ?? r.reason}  ${r.status}  ${safe(r.method) || '-'} ${safe(r.path) || '-'}  from ${r.from}${r.size ? ` (${r.size} bytes)` : ''}${why ? `: ${why}` : ''}`;
}
