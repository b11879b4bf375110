// The requests that call the service through a team's client: pairing, sending, contacts, the
// channel settings and the webhook. A send reports its queueing and retries as send.progress, keeps
// retrying a 503 for as long as the monitor sees the agent reconnecting, and can be stopped by its
// clientRef. A 404 names the agent and its team.
import type { RetryInfo, SendOptions, ServiceClient } from '../../core/api/service';
import type { WebhookRegistration } from '../../core/tunnel';
import type { ErrorDTO } from '../../../src-shared/contract';
import { agentNotFound, serviceKind } from '../errors';
import type { Implementations } from '../handlers';
import type { PairingReads } from './pairing';
import type { Publish } from './scope';
import { sendAndRecord, type SendLog, type SendRecord, type SendVia } from '../../core/messages';
import type { SendRequest, SendResult } from '../../core/api/types';

/** The part of a team's ServiceClient these requests use. */
type TeamClient = Pick<
  ServiceClient,
  'startPairing' | 'getSession' | 'send' | 'checkContact' | 'updateSettings' | 'sendBudget' | 'cancelQueued'
>;

export interface ServiceDeps {
  /** The client of a team; not-found when the team is unknown. */
  clientFor(teamId: string): Promise<TeamClient>;
  /** Registers the webhook and keeps its signing secret in the main process (never handed back). */
  registerWebhook(teamId: string, agentId: string, publicUrl: string, source?: string): Promise<WebhookRegistration>;
  publish: Publish;
  /** Session reads: the pairing's clock, and the monitor told at once what they show. */
  pairing: PairingReads;
  /** The team's label, to name it in messages (default: the id given). */
  teamLabel?(teamId: string): string;
  /** What the monitor knows of an agent's link (default: nothing, so a send's 503s get the client's bounded retries). */
  monitor?: {
    /** The monitor sees the agent reconnecting now. */
    isReconnecting(teamId: string, agentId: string): boolean;
    /** Polls the agent soon (a send met a 503 the monitor may not have seen yet). */
    pollSoon(teamId: string, agentId: string): void;
  };
  /** The send log every send is recorded in (default: none). */
  sends?: {
    log: SendLog;
    now(): number;
    teamIdOf(teamIdOrLabel: string): string;
    recorded(r: SendRecord): void;
    logError(err: unknown): void;
    /** Who sends now (a team hub's acting member), kept with the send; null or absent: no one named. */
    sender?(): string | null;
  };
}

/** A send as the console and Messages ask for it. */
type SendAsk = SendRequest & { teamId: string; agentId: string; clientRef?: string };
/** One send through the team's client, its budget and queue, recorded in the send log. */
export type SendThrough = (via: SendVia, ask: SendAsk) => Promise<SendResult>;

type ServiceRequests = Pick<
  Implementations,
  | 'pairing.start'
  | 'pairing.session'
  | 'send.message'
  | 'send.budget'
  | 'send.cancel'
  | 'send.stop'
  | 'contacts.check'
  | 'channel.updateSettings'
  | 'webhook.register'
>;

/** A retry's cause as the contract says it; a rate limit carries its ceiling. */
function retryErrorDTO(error: RetryInfo['error'], limitPerMinute: number): ErrorDTO {
  const dto: ErrorDTO = { kind: serviceKind(error.kind), code: error.code, message: error.message };
  if (dto.kind === 'rate-limited') dto.limit = limitPerMinute;
  return dto;
}

export function serviceRequests({
  clientFor,
  registerWebhook,
  publish,
  pairing,
  teamLabel = (t) => t,
  monitor,
  sends,
}: ServiceDeps): ServiceRequests & { send: SendThrough } {
  /** Sends in flight that carry a clientRef, to stop them (send.stop). */
  const running = new Map<string, AbortController>();
  /** Runs a request about one agent through its team's client; a 404 names the agent and the team. */
  const forAgent = async <T>(teamId: string, agentId: string, work: (client: TeamClient) => Promise<T>): Promise<T> => {
    const client = await clientFor(teamId);
    try {
      return await work(client);
    } catch (e) {
      throw agentNotFound(e, agentId, teamLabel(teamId));
    }
  };
  const send: SendThrough = (via, { teamId, agentId, clientRef, ...req }) =>
    forAgent(teamId, agentId, async (client) => {
      const base =
        clientRef === undefined ? { teamId, agentId, to: req.to } : { teamId, agentId, to: req.to, clientRef };
      const stop = new AbortController();
      if (clientRef !== undefined) running.set(clientRef, stop);
      try {
        const opts: SendOptions = {
          signal: stop.signal,
          // Past the client's bounded retries, a 503 is retried again while the monitor sees the agent reconnecting.
          shouldKeepRetrying: () => monitor?.isReconnecting(teamId, agentId) ?? false,
          // The queued id lets the console cancel this one send (send.cancel).
          onQueued: ({ id, position, waitMs }) =>
            publish('send.progress', { ...base, phase: 'queued', queuedId: id, position, waitMs }),
          onRetry: ({ attempt, delayMs, error }) => {
            if (error.kind === 'reconnecting' && attempt === 1) monitor?.pollSoon(teamId, agentId);
            publish('send.progress', {
              ...base,
              phase: 'retrying',
              attempt,
              delayMs,
              error: retryErrorDTO(error, client.sendBudget().limit),
            });
          },
        };
        const sentBy = sends?.sender?.() ?? null;
        return sends
          ? await sendAndRecord(client, req, opts, {
              log: sends.log,
              teamId: sends.teamIdOf(teamId),
              agentId,
              via,
              ...(clientRef !== undefined ? { clientRef } : {}),
              ...(sentBy !== null ? { sentBy } : {}),
              now: sends.now,
              onRecorded: sends.recorded,
              onLogError: sends.logError,
            })
          : await client.send(agentId, req, opts);
      } finally {
        if (clientRef !== undefined && running.get(clientRef) === stop) running.delete(clientRef);
      }
    });
  return {
    send,
    'pairing.start': ({ teamId, agentId }) =>
      forAgent(teamId, agentId, async (client) => {
        pairing.begin(teamId, agentId);
        // ASSUMPTION A-SESSION-POST: the reply body is not relied on; read the session with GET.
        await client.startPairing(agentId);
        return pairing.read(teamId, agentId, await client.getSession(agentId));
      }),
    'pairing.session': ({ teamId, agentId }) =>
      forAgent(teamId, agentId, async (client) => pairing.read(teamId, agentId, await client.getSession(agentId))),

    'send.message': async ({ from, ...ask }) => {
      const r = await send(from ?? 'console', ask);
      return { status: r.status, messageId: r.messageId, to: r.to };
    },
    'send.budget': async ({ teamId }) => {
      const b = (await clientFor(teamId)).sendBudget();
      return { teamId, limit: b.limit, windowMs: b.windowMs, used: b.used, queued: b.queued.map((q) => ({ ...q })) };
    },
    'send.cancel': async ({ teamId, queuedId }) => ({ cancelled: (await clientFor(teamId)).cancelQueued(queuedId) }),
    'send.stop': async ({ clientRef }) => {
      const stop = running.get(clientRef);
      stop?.abort();
      return { stopped: stop !== undefined };
    },

    'contacts.check': ({ teamId, agentId, phone }) =>
      forAgent(teamId, agentId, async (client) => {
        const c = await client.checkContact(agentId, phone);
        return { phone: c.phone, exists: c.exists, jid: c.jid };
      }),
    'channel.updateSettings': ({ teamId, agentId, patch }) =>
      forAgent(teamId, agentId, async (client) => {
        const s = await client.updateSettings(agentId, patch);
        return { groups: s.groups, readReceipts: s.readReceipts, deliveryReceipts: s.deliveryReceipts };
      }),
    'webhook.register': async ({ teamId, agentId, publicUrl, source }) => {
      const r = await registerWebhook(teamId, agentId, publicUrl, source);
      return { mode: r.mode, url: r.url };
    },
  };
}
