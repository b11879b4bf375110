// Health words and glyphs: meaning never rests on colour alone.
import { HEALTH_STATES, type HealthState } from '../../../src-shared/contract';

export const HEALTH_WORDS: Record<HealthState, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting — recovers on its own',
  'needs-scan': 'Needs a QR scan',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** Any health, while the app cannot tell it now (the main side does not answer). */
export const STALE_WORDS = 'Unknown';

export const HEALTH_GLYPHS: Record<HealthState, string> = {
  connected: '●',
  reconnecting: '↻',
  'needs-scan': '▣',
  unreachable: '✕',
  unknown: '?',
};

/** Worst first: HEALTH_STATES is ordered best → worst. */
export function healthRank(h: HealthState): number {
  return HEALTH_STATES.indexOf(h);
}
