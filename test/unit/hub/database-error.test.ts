// A request the hub's database did not serve (a restart cut the connection, it is away for a moment) answers
// DATABASE_UNAVAILABLE, the code a client asks again after (listen reads a delivery again), not INTERNAL.
import { describe, expect, it } from 'vitest';
import { toErrorDTO } from '../../../src-main/app/errors';
import { HubDatabaseError } from '../../../src-main/app/hub/database';

describe('a failed database read in a request', () => {
  it('answers DATABASE_UNAVAILABLE with its words', () => {
    const dto = toErrorDTO(
      new HubDatabaseError(
        "the hub's database could not be read (terminating connection due to administrator command)",
      ),
    );
    expect(dto).toEqual({
      kind: 'internal',
      code: 'DATABASE_UNAVAILABLE',
      message: "the hub's database could not be read (terminating connection due to administrator command)",
    });
  });
});
