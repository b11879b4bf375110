import { describe, expect, it } from 'vitest';
import { refusedLine } from '../../../src-main/cli/tunnel-support';
import { verdictWords } from '../../../src-shared/words';
import type { RefusedRequest } from '../../../src-main/core/tunnel/types';

const base: RefusedRequest = {
  id: 'r1',
  at: Date.UTC(2026, 0, 2, 3, 4, 5),
  method: 'POST',
  path: '/hooks/a1',
  agentId: 'a1',
  from: '203.0.113.9',
  reason: 'stale-timestamp',
  detail:
    'x-service-signature-v1: t=1767322800, 1 v1 signature(s)\na v1 signature matches\ntimestamp is 3600 s old; tolerance is 300 s',
  status: 401,
  size: 150,
  sha256: 'ab'.repeat(32),
  prefix: '{}',
  headers: {},
};

describe('refusedLine', () => {
  it('says why in the last verification step, not the first', () => {
    expect(refusedLine(base)).toBe(
      '2026-01-02T03:04:05.000Z Refused — timestamp too old (401) POST /hooks/a1 from 203.0.113.9 (150 bytes): timestamp is 3600 s old; tolerance is 300 s',
    );
  });

  it('prints a one-line detail whole, and dashes for an empty method or path', () => {
    expect(
      refusedLine({
        ...base,
        method: '',
        path: '',
        size: 0,
        reason: 'bad-request',
        detail: 'the request line could not be read',
      }),
    ).toBe(
      '2026-01-02T03:04:05.000Z Refused — bad request (401) - - from 203.0.113.9: the request line could not be read',
    );
  });
});

describe('verdictWords', () => {
  it("reads a verdict in the screens' words: verified, an acknowledged duplicate, or refused with its reason", () => {
    expect(verdictWords('verified')).toBe('Verified');
    expect(verdictWords('duplicate')).toBe('Verified — duplicate (acknowledged, not passed on)');
    expect(verdictWords('signature-mismatch')).toBe('Refused — bad signature');
    expect(verdictWords('no-secret')).toBe('Refused — no signing secret');
  });
});
