import { describe, expect, it } from 'vitest';
import { registerWebhook } from '../../../../src-main/core/tunnel';

describe('registerWebhook', () => {
  it('sets the webhook, hands the secret to saveSecret and returns only mode and url', async () => {
    const calls: Array<[string, string]> = [];
    const saved: string[] = [];
    const client = {
      setWebhook: async (agentId: string, url: string) => {
        calls.push([agentId, url]);
        return { mode: 'passthrough', url, secret: 'whsec_top_secret', events: ['message.received'] };
      },
    };
    const r = await registerWebhook({ client, agentId: 'ag', publicUrl: 'http://127.0.0.1:4000/hooks/ag', saveSecret: async (s) => void saved.push(s) });
    expect(r).toEqual({ mode: 'passthrough', url: 'http://127.0.0.1:4000/hooks/ag' });
    expect(JSON.stringify(r)).not.toContain('whsec');
    expect(saved).toEqual(['whsec_top_secret']);
    expect(calls).toEqual([['ag', 'http://127.0.0.1:4000/hooks/ag']]);
  });

  it('rejects a URL that is not http(s) before calling the service', async () => {
    let called = false;
    const client = { setWebhook: async () => ((called = true), { mode: 'x', url: 'x', secret: 's' }) };
    await expect(registerWebhook({ client, agentId: 'ag', publicUrl: 'ftp://x/y', saveSecret: async () => undefined })).rejects.toThrow();
    expect(called).toBe(false);
  });

  it('fails when the service returns no secret, saving nothing', async () => {
    const saved: string[] = [];
    const client = { setWebhook: async (_a: string, url: string) => ({ mode: 'passthrough', url, secret: '' }) };
    await expect(registerWebhook({ client, agentId: 'ag', publicUrl: 'http://127.0.0.1:1/', saveSecret: async (s) => void saved.push(s) })).rejects.toThrow(/secret/);
    expect(saved).toEqual([]);
  });
});
