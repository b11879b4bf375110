// Health words and glyphs: meaning never rests on colour alone. The words are the shared ones (the
// tray and the command line say the same).
import type { Health } from '../../../src-shared/contract';

export { HEALTH_HINTS, HEALTH_SHORT, HEALTH_WORDS, STALE_WORDS } from '../../../src-shared/words';

export const HEALTH_GLYPHS: Record<Health, string> = {
  connected: '●',
  reconnecting: '↻',
  'needs-scan': '▣',
  'key-rejected': '!',
  'not-found': '✕',
  unreachable: '✕',
  unknown: '?',
};
