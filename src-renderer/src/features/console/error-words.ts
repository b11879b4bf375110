// Words for each error kind, so a message says what happened, not just that something failed.
import type { ErrorDTO, ErrorKind } from '../../../../src-shared/contract';

const KIND_WORDS: Record<ErrorKind, string> = {
  reconnecting: 'Reconnecting',
  'not-configured': 'Needs a QR scan',
  'rate-limited': 'Rate limited',
  'quota-exceeded': 'Monthly quota used up',
  unauthorized: 'API key rejected',
  'not-found': 'Not found',
  'invalid-request': 'Invalid request',
  'server-error': 'Service error',
  'network-error': 'Network error',
  timeout: 'Timed out',
  aborted: 'Cancelled',
  validation: 'Invalid input',
  keychain: 'Keychain error',
  forbidden: 'Not allowed',
  internal: 'Internal error',
};

export function describeError(e: ErrorDTO): string {
  const status = e.status !== undefined ? ` (HTTP ${e.status})` : '';
  return `${KIND_WORDS[e.kind] ?? e.kind}${status}: ${e.message}`;
}
