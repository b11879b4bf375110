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

/** The same words cut to the state alone, for tight places (the sidebar, list rows); HEALTH_HINTS says the rest. */
export const HEALTH_SHORT: Record<HealthState, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting',
  'needs-scan': 'Needs a QR scan',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** What the state means for the person, beside a short badge. */
export const HEALTH_HINTS: Record<HealthState, string> = {
  connected: '',
  reconnecting: 'recovers on its own',
  'needs-scan': 'a person must scan the QR code',
  unreachable: 'the service does not answer',
  unknown: 'waiting for the first check',
};

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
