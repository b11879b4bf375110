import type { HealthState } from '../../../src-shared/contract';
import { HEALTH_GLYPHS, HEALTH_WORDS } from './health';

export function HealthBadge({ health }: { health: HealthState }) {
  return (
    <span className={`badge badge-${health}`}>
      <span aria-hidden="true" className="badge-glyph">
        {HEALTH_GLYPHS[health]}
      </span>{' '}
      {HEALTH_WORDS[health]}
    </span>
  );
}
