import type { HealthState } from '../../../src-shared/contract';
import { HEALTH_GLYPHS, HEALTH_WORDS, STALE_WORDS } from './health';

/** `stale`: the app cannot tell the health now (the main side does not answer): shown as unknown. */
export function HealthBadge({ health, stale = false }: { health: HealthState; stale?: boolean }) {
  const shown = stale ? 'unknown' : health;
  return (
    <span className={`badge badge-${shown}`}>
      <span aria-hidden="true" className="badge-glyph">
        {HEALTH_GLYPHS[shown]}
      </span>{' '}
      {stale ? STALE_WORDS : HEALTH_WORDS[health]}
    </span>
  );
}
