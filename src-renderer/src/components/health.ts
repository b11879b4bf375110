// Health words and glyphs: meaning never rests on colour alone.
import { HEALTHS, type Health } from '../../../src-shared/contract';

export const HEALTH_WORDS: Record<Health, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting — recovers on its own',
  'needs-scan': 'Needs a QR scan',
  'key-rejected': 'Key rejected — add the team again with a current key',
  'not-found': 'Not in this team on the service',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** Any health, while the app cannot tell it now (the main side does not answer). */
export const STALE_WORDS = 'Unknown';

/** The same words cut to the state alone, for tight places (the sidebar, list rows); HEALTH_HINTS says the rest. */
export const HEALTH_SHORT: Record<Health, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting',
  'needs-scan': 'Needs a QR scan',
  'key-rejected': 'Key rejected',
  'not-found': 'Not found',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** What the state means for the person, beside a short badge. */
export const HEALTH_HINTS: Record<Health, string> = {
  connected: '',
  reconnecting: 'recovers on its own',
  'needs-scan': 'a person must scan the QR code',
  'key-rejected': "the service refused the team's API key",
  'not-found': 'the service does not know this agent in this team',
  unreachable: 'the service does not answer',
  unknown: 'waiting for the first check',
};

export const HEALTH_GLYPHS: Record<Health, string> = {
  connected: '●',
  reconnecting: '↻',
  'needs-scan': '▣',
  'key-rejected': '!',
  'not-found': '✕',
  unreachable: '✕',
  unknown: '?',
};

/** Worst first: HEALTHS is ordered best → worst. */
export function healthRank(h: Health): number {
  return HEALTHS.indexOf(h);
}
