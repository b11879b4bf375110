import type { Health } from '../../../src-shared/contract';
import { HEALTH_GLYPHS, HEALTH_SHORT, HEALTH_WORDS, STALE_WORDS } from './health';

/**
 * The health in words and glyph (never colour alone). `short` keeps to the state's name
 * (HEALTH_SHORT); `stale`: the app cannot tell the health now (the main side does not answer), so
 * it shows as unknown.
 */
export function HealthBadge({
  health,
  short = false,
  stale = false,
}: {
  health: Health;
  short?: boolean;
  stale?: boolean;
}) {
  const shown = stale ? 'unknown' : health;
  return (
    <span
      className={`badge badge-${shown}`}
      title={!stale && short && HEALTH_SHORT[health] !== HEALTH_WORDS[health] ? HEALTH_WORDS[health] : undefined}
    >
      <span aria-hidden="true" className="badge-glyph">
        {HEALTH_GLYPHS[shown]}
      </span>{' '}
      {stale ? STALE_WORDS : short ? HEALTH_SHORT[health] : HEALTH_WORDS[health]}
    </span>
  );
}
