import type { HealthState } from '../../../src-shared/contract';
import { HEALTH_GLYPHS, HEALTH_SHORT, HEALTH_WORDS } from './health';

/** The health in words and glyph (never colour alone); `short` keeps to the state's name (HEALTH_SHORT). */
export function HealthBadge({ health, short = false }: { health: HealthState; short?: boolean }) {
  return (
    <span className={`badge badge-${health}`} title={short && HEALTH_SHORT[health] !== HEALTH_WORDS[health] ? HEALTH_WORDS[health] : undefined}>
      <span aria-hidden="true" className="badge-glyph">
        {HEALTH_GLYPHS[health]}
      </span>{' '}
      {short ? HEALTH_SHORT[health] : HEALTH_WORDS[health]}
    </span>
  );
}
