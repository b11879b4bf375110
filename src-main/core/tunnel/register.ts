// Registering a webhook and keeping its signing secret, the one way every caller does it (the app's
// webhook.register, `listen --register-url`, `webhook set`): PUT .../whatsapp/webhook, check the
// returned signing secret, hand it to saveSecret (the keychain, memory or a file), and answer the
// registration without it. The secret is never logged or returned, and the URL is answered redacted
// (shownWebhookUrl): whatever shows or keeps a registration never has a user, password, query value
// or token-like path segment of it.
import { ServerError } from '../api/errors';
import type { ServiceClient } from '../api/service';
import type { WebhookConfig } from '../api/types';
import { signingSecretSchema } from '../teams/schema';
import { httpUrlSchema, redactUrl } from '../url';

/** What the service says it registered, without the signing secret; its URL redacted (shownWebhookUrl). */
export type WebhookRegistration = Omit<WebhookConfig, 'secret'>;

/**
 * A webhook URL as shown and kept: redacted (core/url.ts redactUrl), the agent's own id in its path
 * left as it is (a hook URL ends with it, and it is no secret).
 */
export function shownWebhookUrl(url: string, agentId: string): string {
  return redactUrl(url, [encodeURIComponent(agentId)]);
}

export interface RegisterOptions {
  client: Pick<ServiceClient, 'setWebhook'>;
  agentId: string;
  publicUrl: string;
  /** Keeps the secret; runs before registerWebhook answers, so a failure here fails the registration. */
  saveSecret(secret: string, registered: WebhookRegistration): Promise<void>;
  signal?: AbortSignal;
}

export async function registerWebhook(o: RegisterOptions): Promise<WebhookRegistration> {
  const url = httpUrlSchema.parse(o.publicUrl);
  // ASSUMPTION A-WEBHOOK-RESP: mode, url and secret are relied on; events and updatedAt are passed on when present.
  const { secret, ...answered } = await o.client.setWebhook(
    o.agentId,
    url,
    o.signal ? { signal: o.signal } : undefined,
  );
  const registered: WebhookRegistration = { ...answered, url: shownWebhookUrl(answered.url, o.agentId) };
  // The one rule for the secret, whoever registers: the same one the keychain store applies.
  if (!signingSecretSchema.safeParse(secret).success) {
    throw new ServerError({
      code: 'NO_SIGNING_SECRET',
      message:
        'The service set the webhook but returned no usable signing secret, so its deliveries cannot be verified; register the webhook again.',
    });
  }
  await o.saveSecret(secret, registered);
  return registered;
}
