// One line over the agents list: how many agents are connected, reconnecting, need a scan or are
// unreachable (and not checked yet, while any are), each with its glyph; counted from the same
// health the rows show. While the app cannot tell the health now (the main side does not answer:
// `stale`), no count is given: the rows read unknown, and so does the summary.
import type { Health } from '../../../../src-shared/contract';
import { counted, HEALTH_COUNT_ORDER, healthCount } from '../../../../src-shared/words';
import { HEALTH_GLYPHS, STALE_WORDS } from '../../components/health';

/** Counted even at zero; the others only when some agent has them. */
const ALWAYS: ReadonlySet<Health> = new Set(['connected', 'reconnecting', 'needs-scan', 'unreachable']);

export function HealthSummary({
  counts,
  total,
  stale = false,
}: {
  counts: Readonly<Record<Health, number>>;
  total: number;
  stale?: boolean;
}) {
  if (stale) {
    return (
      <p className="health-summary">
        <span className="health-summary-total">{counted(total, 'agent')}:</span>
        <span className="health-count health-count-unknown">
          <span aria-hidden="true">{HEALTH_GLYPHS.unknown}</span> health {STALE_WORDS.toLowerCase()} while the companion
          is not answering
        </span>
      </p>
    );
  }
  const items = HEALTH_COUNT_ORDER.filter((h) => ALWAYS.has(h) || counts[h] > 0);
  return (
    <p className="health-summary">
      <span className="health-summary-total">{counted(total, 'agent')}:</span>
      {items.map((h, i) => {
        const n = counts[h];
        return (
          <span key={h} className={`health-count health-count-${h}${n === 0 ? ' zero' : ''}`}>
            <span aria-hidden="true">{HEALTH_GLYPHS[h]}</span> {healthCount(h, n)}
            {i < items.length - 1 && <span className="sr-only">,</span>}
          </span>
        );
      })}
    </p>
  );
}
