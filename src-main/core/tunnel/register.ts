// Points an agent's webhook at the tunnel: PUT .../whatsapp/webhook, then hands the returned
// signing secret to saveSecret (the keychain). The secret is never logged or returned.
import type { ServiceClient } from '../api/service';
import { httpUrlSchema } from '../url';

export interface RegisterOptions {
  client: Pick<ServiceClient, 'setWebhook'>;
  agentId: string;
  publicUrl: string;
  saveSecret(secret: string): Promise<void>;
  signal?: AbortSignal;
}

export async function registerWebhook(o: RegisterOptions): Promise<{ mode: string; url: string }> {
  const url = httpUrlSchema.parse(o.publicUrl);
  // ASSUMPTION A-WEBHOOK-RESP: mode, url and secret are relied on; other fields are ignored.
  const config = await o.client.setWebhook(o.agentId, url, o.signal ? { signal: o.signal } : undefined);
  if (typeof config.secret !== 'string' || config.secret.length === 0) {
    throw new Error('the service did not return a signing secret for the webhook');
  }
  await o.saveSecret(config.secret);
  return { mode: config.mode, url: config.url };
}
