// The requests that call the service through a team's client: pairing, sending, contacts, the
// channel settings and the webhook. A send reports its queueing and retries as send.progress.
import type { ServiceClient } from '../../core/api/service';
import type { WebhookRegistration } from '../../core/tunnel';
import { serviceKind } from '../errors';
import type { Implementations } from '../handlers';
import type { PairingReads } from './pairing';
import type { Publish } from './scope';

/** The part of a team's ServiceClient these requests use. */
export type TeamClient = Pick<ServiceClient, 'startPairing' | 'getSession' | 'send' | 'checkContact' | 'updateSettings' | 'sendBudget' | 'cancelQueued'>;

export interface ServiceDeps {
  /** The client of a team; not-found when the team is unknown. */
  clientFor(teamId: string): Promise<TeamClient>;
  /** Registers the webhook and keeps its signing secret in the main process (never handed back). */
  registerWebhook(teamId: string, agentId: string, publicUrl: string): Promise<WebhookRegistration>;
  publish: Publish;
  /** Session reads: the pairing's clock, and the monitor told at once what they show. */
  pairing: PairingReads;
}

type ServiceRequests = Pick<
  Implementations,
  'pairing.start' | 'pairing.session' | 'send.message' | 'send.budget' | 'send.cancel' | 'contacts.check' | 'channel.updateSettings' | 'webhook.register'
>;

export function serviceRequests({ clientFor, registerWebhook, publish, pairing }: ServiceDeps): ServiceRequests {
  return {
    'pairing.start': async ({ teamId, agentId }) => {
      const client = await clientFor(teamId);
      pairing.begin(teamId, agentId);
      // ASSUMPTION A-SESSION-POST: the reply body is not relied on; read the session with GET.
      await client.startPairing(agentId);
      return pairing.read(teamId, agentId, await client.getSession(agentId));
    },
    'pairing.session': async ({ teamId, agentId }) => pairing.read(teamId, agentId, await (await clientFor(teamId)).getSession(agentId)),

    'send.message': async ({ teamId, agentId, clientRef, ...req }) => {
      const client = await clientFor(teamId);
      const base = clientRef === undefined ? { teamId, agentId, to: req.to } : { teamId, agentId, to: req.to, clientRef };
      const r = await client.send(agentId, req, {
        // The queued id lets the console cancel this one send (send.cancel).
        onQueued: ({ id, position, waitMs }) => publish('send.progress', { ...base, phase: 'queued', queuedId: id, position, waitMs }),
        onRetry: ({ attempt, delayMs, error }) =>
          publish('send.progress', { ...base, phase: 'retrying', attempt, delayMs, error: { kind: serviceKind(error.kind), code: error.code, message: error.message } }),
      });
      return { status: r.status, messageId: r.messageId, to: r.to };
    },
    'send.budget': async ({ teamId }) => {
      const b = (await clientFor(teamId)).sendBudget();
      return { teamId, limit: b.limit, windowMs: b.windowMs, used: b.used, queued: b.queued.map((q) => ({ ...q })) };
    },
    'send.cancel': async ({ teamId, queuedId }) => ({ cancelled: (await clientFor(teamId)).cancelQueued(queuedId) }),

    'contacts.check': async ({ teamId, agentId, phone }) => {
      const c = await (await clientFor(teamId)).checkContact(agentId, phone);
      return { phone: c.phone, exists: c.exists, jid: c.jid };
    },
    'channel.updateSettings': async ({ teamId, agentId, patch }) => {
      const s = await (await clientFor(teamId)).updateSettings(agentId, patch);
      return { groups: s.groups, readReceipts: s.readReceipts, deliveryReceipts: s.deliveryReceipts };
    },
    'webhook.register': async ({ teamId, agentId, publicUrl }) => {
      const r = await registerWebhook(teamId, agentId, publicUrl);
      return { mode: r.mode, url: r.url };
    },
  };
}
