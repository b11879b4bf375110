// The CLI's words for errors: hints in words after the message, never an internal code in
// parentheses (the code stays in the --json error object).
import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src-main/cli/errors';
import { NotFound, RateLimited } from '../../../src-main/core/api/errors';

describe('CLI error words', () => {
  it('a 429 says the rate limit per minute and the wait; the code is kept as data', () => {
    const d = describeError(new RateLimited({ rateLimit: { limit: 60, retryAfter: 12 } }));
    expect(d.message).toBe(
      'Send rate limit exceeded; slow down. (rate limit reached: the service allows 60 per minute (X-RateLimit-Limit); wait 12 s)',
    );
    expect(d.code).toBe('RATE_LIMITED');
    expect(describeError(new RateLimited()).message).toBe(
      'Send rate limit exceeded; slow down. (rate limit reached: the service did not say its ceiling (no X-RateLimit-Limit); slow down)',
    );
  });

  it('messages for people carry no code in parentheses', () => {
    for (const e of [new RateLimited({ rateLimit: { limit: 60 } }), new NotFound()]) {
      const d = describeError(e);
      expect(d.message).not.toContain(`(${d.code})`);
      expect(d.message).not.toMatch(/\([A-Z_]{4,}\)/);
    }
  });
});
