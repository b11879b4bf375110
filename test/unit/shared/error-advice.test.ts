// Error advice: one module for the app's screens and the command line.
import { describe, expect, it } from 'vitest';
import { cliHint, describeError } from '../../../src-shared/error-advice';
import { SERVICE_ERROR_KINDS } from '../../../src-shared/vocabulary';

describe('error advice', () => {
  it.each(SERVICE_ERROR_KINDS)('the app has its own words for the service error kind %s', (kind) => {
    const { what, todo } = describeError({ kind, code: 'X', message: 'the service said so' });
    expect(what).not.toMatch(/inside the app/);
    expect(todo).not.toBe('');
  });

  it('the command line points at its own commands and flags, the app at its screens', () => {
    expect(cliHint({ kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', message: '' })).toContain(
      'channel-companion pair',
    );
    expect(describeError({ kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', message: '' }).todo).toContain(
      'Open Pairing',
    );
    expect(cliHint({ kind: 'rate-limited', code: 'RATE_LIMITED', message: '', limit: 60, retryAfterSec: 12 })).toBe(
      'rate limit reached: the service allows 60 per minute (X-RateLimit-Limit); wait 12 s',
    );
    expect(cliHint({ kind: 'server-error', code: 'E', message: '' })).toBeNull();
    // After a message that says the key was rejected: what to do, not the same news again.
    const rejected = cliHint({ kind: 'key-rejected', code: 'UNAUTHORIZED', message: 'The API key was rejected.' });
    expect(rejected).toContain('team edit --key-from-env');
    expect(rejected).not.toMatch(/rejected/);
  });
});
