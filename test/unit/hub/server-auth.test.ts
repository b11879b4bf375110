// The hub reads a member's token from `Authorization: Bearer <token>` as HTTP has it: the scheme's name in any case,
// whitespace around it (the same reading as the browser host's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractEvents } from '../../../src-main/app/contract';
import { bearerToken } from '../../../src-main/app/contract-http';
import type { Handlers } from '../../../src-main/app/handlers';
import { startHubServer } from '../../../src-main/hub/server';

const TOKEN = 'member-token-0123456789';

describe('the hub reading a member token', () => {
  let hub: Awaited<ReturnType<typeof startHubServer>>;
  beforeAll(async () => {
    hub = await startHubServer({
      handlers: {} as Handlers,
      events: {} as ContractEvents,
      memberOfToken: async (t) => (t === TOKEN ? { name: 'alice', role: 'viewer', createdAt: 0 } : null),
      ready: async () => true,
      metrics: async () => ({ contentType: 'text/plain', body: 'up 1\n' }),
    });
  });
  afterAll(() => hub.close());

  const metrics = async (authorization: string): Promise<number> =>
    (await fetch(`${hub.origin}/metrics`, { headers: { authorization } })).status;

  it('takes the scheme in any case, with whitespace around it', async () => {
    for (const h of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, ` bEaReR \t ${TOKEN}  `])
      expect({ h, status: await metrics(h) }).toEqual({ h, status: 200 });
  });

  it('refuses another scheme, a wrong token or none', async () => {
    for (const h of [`Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer', `Bearer${TOKEN}`])
      expect({ h, status: await metrics(h) }).toEqual({ h, status: 401 });
  });
});

describe('bearerToken', () => {
  it('is the token of a Bearer header, or null', () => {
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('  Bearer\tabc ')).toBe('abc');
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(`Bearer ${'a'.repeat(513)}`)).toBeNull();
  });
});
