import { describe, expect, it } from 'vitest';
import { ServerError } from '../../../../src-main/core/api/errors';
import { registerWebhook } from '../../../../src-main/core/tunnel/register';

describe('registerWebhook', () => {
  it('sets the webhook, hands the secret to saveSecret and returns the registration without it', async () => {
    const calls: Array<[string, string]> = [];
    const saved: Array<[string, unknown]> = [];
    const client = {
      setWebhook: async (agentId: string, url: string) => {
        calls.push([agentId, url]);
        return { mode: 'passthrough', url, secret: 'whsec_top_secret', events: ['message.received'] };
      },
    };
    const r = await registerWebhook({
      client,
      agentId: 'ag',
      publicUrl: 'http://127.0.0.1:4000/hooks/ag',
      saveSecret: async (s, reg) => void saved.push([s, reg]),
    });
    const registration = { mode: 'passthrough', url: 'http://127.0.0.1:4000/hooks/ag', events: ['message.received'] };
    expect(r).toEqual(registration);
    expect(JSON.stringify(r)).not.toContain('whsec');
    expect(saved).toEqual([['whsec_top_secret', registration]]);
    expect(calls).toEqual([['ag', 'http://127.0.0.1:4000/hooks/ag']]);
  });

  it('rejects a URL that is not http(s) before calling the service', async () => {
    let called = false;
    const client = { setWebhook: async () => ((called = true), { mode: 'x', url: 'x', secret: 's' }) };
    await expect(
      registerWebhook({ client, agentId: 'ag', publicUrl: 'ftp://x/y', saveSecret: async () => undefined }),
    ).rejects.toThrow();
    expect(called).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['missing', undefined],
    ['too long', 'x'.repeat(5000)],
  ])('fails with NO_SIGNING_SECRET when the secret is %s, saving nothing', async (_what, secret) => {
    const saved: string[] = [];
    const client = {
      setWebhook: async (_a: string, url: string) => ({ mode: 'passthrough', url, secret: secret as string }),
    };
    const err = await registerWebhook({
      client,
      agentId: 'ag',
      publicUrl: 'http://127.0.0.1:1/',
      saveSecret: async (s) => void saved.push(s),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      kind: 'server-error',
      code: 'NO_SIGNING_SECRET',
      message: expect.stringMatching(/no usable signing secret/),
    });
    expect(saved).toEqual([]);
  });

  it('a secret that cannot be kept fails the registration', async () => {
    const client = {
      setWebhook: async (_a: string, url: string) => ({ mode: 'passthrough', url, secret: 'whsec_ok_secret' }),
    };
    const saveSecret = async (): Promise<void> => {
      throw new Error('keychain locked');
    };
    await expect(
      registerWebhook({ client, agentId: 'ag', publicUrl: 'http://127.0.0.1:1/', saveSecret }),
    ).rejects.toThrow('keychain locked');
  });
});
