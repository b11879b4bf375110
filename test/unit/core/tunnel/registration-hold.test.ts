// A delivery that fails verification while its agent's webhook registration is in flight: held
// until the registration ends, then verified with the secrets stored by then; answered 503 with
// Retry-After when the registration outlasts the hold. Without a registration in flight: 401 at once.
import { afterEach, describe, expect, it } from 'vitest';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { signDelivery } from '../../../../src-main/core/signature';
import { rawRequest, tempDir, waitFor } from './helpers';

const OLD = 'whsec_old_secret_0123456789abcdef';
const NEW = 'whsec_new_secret_0123456789abcdef';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(holdMs?: number) {
  const { dir, cleanup } = await tempDir('hold-');
  cleanups.push(cleanup);
  const secrets = { now: [OLD], reads: 0 };
  const t = new Tunnel({
    dataDir: dir,
    getSecrets: async () => {
      secrets.reads++;
      return secrets.now;
    },
    ...(holdMs !== undefined ? { registrationHoldMs: holdMs } : {}),
  });
  const { url } = await t.start();
  cleanups.push(() => t.stop());
  return { t, url: `${url}/hooks/a1`, secrets };
}

function post(url: string, secret: string, text: string) {
  const body = Buffer.from(
    JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id: `m-${text}`, type: 'text', text },
    }),
  );
  return rawRequest(url, {
    headers: { 'content-type': 'application/json', ...signDelivery(secret, body, Math.floor(Date.now() / 1000)) },
    body,
  });
}

describe('deliveries during a webhook registration', () => {
  it('signed with the new secret while the registration is in flight: held, then verified once the secret is stored', async () => {
    const { t, url, secrets } = await receiver();
    const end = t.registrations.begin('a1');
    const answer = post(url, NEW, 'early');
    // The first verification (with the old secret only) has run: the delivery is being held.
    await waitFor(() => secrets.reads === 1, 5_000, 'first verification');
    secrets.now = [NEW, OLD];
    end();
    const r = await answer;
    expect(r.status).toBe(200);
    const [item] = t.list({ limit: 10 });
    expect(item!.verdict).toMatchObject({ ok: true, reason: 'verified' });
    expect(t.get(item!.id)!.verdict.steps[0]).toMatch(/held while a webhook registration of a1 was under way/);
    expect(t.refused({ limit: 10 })).toEqual([]);
  });

  it('a registration that outlasts the hold: 503 with Retry-After, kept as a refusal that says why', async () => {
    const { t, url } = await receiver(50);
    const end = t.registrations.begin('a1');
    const r = await post(url, NEW, 'late');
    end();
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json).toMatchObject({ ok: false, reason: 'registration-in-flight' });
    const [refused] = t.refused({ limit: 10 });
    expect(refused).toMatchObject({ reason: 'registering', status: 503, agentId: 'a1' });
    expect(refused!.detail).toMatch(/still under way/);
  });

  it('no registration in flight: a delivery with an unknown secret is refused at once (401)', async () => {
    const { t, url } = await receiver();
    const r = await post(url, NEW, 'stranger');
    expect(r.status).toBe(401);
    expect(t.refused({ limit: 10 })[0]).toMatchObject({ reason: 'signature-mismatch', status: 401 });
  });

  it('a delivery that verifies with the old secret is not held by a registration in flight', async () => {
    const { t, url } = await receiver(60_000);
    const end = t.registrations.begin('a1');
    const r = await post(url, OLD, 'before');
    end();
    expect(r.status).toBe(200);
  });
});
