// tunnel.* over the companion's Tunnel: delivery records → contract DTOs, filters, replay,
// simulate, export and media. Signing secrets stay in the companion (keychain); DTOs carry none.
import type {
  DeliveryDetail,
  DeliveryListItem,
  ForwardAttempt,
  RefusedRequest,
  StoredDelivery,
  TunnelReason,
} from '../../core/tunnel';
import type {
  DeliveryDetailDTO,
  DeliveryFilterDTO,
  DeliverySummaryDTO,
  ForwardResultDTO,
  RefusedRequestDTO,
  TunnelAgentDTO,
  TunnelStatusDTO,
  Verdict,
} from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import type { MediaFiles } from './media';
import { hookUrl } from '../../core/tunnel';
import { exposureDTO } from './expose';
import { registrationStatusDTO } from './webhooks';
import type { RegistrationRecord } from '../../core/tunnel';
import type { Scope } from './scope';

type TunnelRequests = Pick<
  Implementations,
  | 'tunnel.status'
  | 'tunnel.start'
  | 'tunnel.deliveries'
  | 'tunnel.delivery'
  | 'tunnel.replay'
  | 'tunnel.simulate'
  | 'tunnel.export'
  | 'tunnel.media'
  | 'tunnel.refused'
  | 'tunnel.retryNow'
>;

export interface TunnelSide {
  requests: TunnelRequests;
  /** A stored delivery as the contract's summary (the tunnel.delivery event). */
  summaryOf(d: StoredDelivery): DeliverySummaryDTO;
  /** A signing secret is now held for this agent (tunnel.status answers it at once). */
  secretKept(teamId: string, agentId: string): void;
}

/** A stored delivery's verdict as shown: its reason, or `simulated` for one made up here. */
function verdictOf(reason: TunnelReason, simulated: boolean): Verdict {
  return simulated ? 'simulated' : reason;
}

const PREVIEW_CHARS = 140;

function previewOf(bodyBase64: string): string {
  const text = Buffer.from(bodyBase64, 'base64').toString('utf8');
  try {
    const o = JSON.parse(text) as { message?: { text?: unknown; caption?: unknown; type?: unknown } };
    const m = o.message ?? {};
    const words =
      typeof m.text === 'string' && m.text !== ''
        ? m.text
        : typeof m.caption === 'string'
          ? m.caption
          : typeof m.type === 'string'
            ? `[${m.type}]`
            : '';
    return words.slice(0, PREVIEW_CHARS);
  } catch {
    return text.slice(0, PREVIEW_CHARS);
  }
}

/** The service's own id of a delivery: its x-delivery-id header (header names are stored lower-cased), or null. */
export function serviceIdOf(d: Pick<StoredDelivery, 'headers'>): string | null {
  const v = d.headers['x-delivery-id'];
  const first = Array.isArray(v) ? v[0] : v;
  return first !== undefined && first !== '' ? first : null;
}

/** A refused request as the contract's DTO (the same fields; a copy, so the store's entry stays its own). */
export function refusedDTO(r: RefusedRequest): RefusedRequestDTO {
  return { ...r, headers: { ...r.headers } };
}

export function forwardDTO(a: ForwardAttempt): ForwardResultDTO {
  const dto: ForwardResultDTO = {
    deliveryId: a.deliveryId,
    at: a.at,
    url: a.url,
    status: a.status,
    durationMs: a.durationMs,
    responseBody: a.responseBody ?? null,
  };
  if (a.error !== null) dto.error = a.error;
  if (a.replay !== undefined) dto.replay = a.replay;
  return dto;
}

/** A stored delivery as the contract's summary, with its team and the status of its last forward. */
export function deliverySummaryDTO(
  d: StoredDelivery,
  teamId: string | null,
  lastStatus: number | null,
): DeliverySummaryDTO {
  return {
    id: d.id,
    serviceId: serviceIdOf(d),
    receivedAt: d.receivedAt,
    teamId,
    agentId: d.agentId,
    event: d.summary.event ?? '',
    from: d.summary.from,
    messageId: d.summary.messageId,
    messageType: d.summary.type,
    preview: previewOf(d.bodyBase64),
    verdict: verdictOf(d.verdict.reason, d.simulated === true),
    forwardStatus: lastStatus,
  };
}

/** The status of a delivery's last forward (replays aside), or null. */
export function lastForwardStatus(d: DeliveryDetail): number | null {
  const forwards = d.attempts.filter((a) => !a.replay);
  return forwards[forwards.length - 1]?.status ?? null;
}

/** A delivery's request as the contract shows it: its headers joined, its body as text. */
export function deliveryRequestDTO(d: StoredDelivery): { headers: Record<string, string>; rawBody: string } {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return { headers, rawBody: Buffer.from(d.bodyBase64, 'base64').toString('utf8') };
}

/** A delivery in full as the contract's detail (headers joined, the body as text, every forward). */
export function deliveryDetailDTO(
  d: DeliveryDetail,
  teamId: string | null,
  nextTryAt: number | null,
): DeliveryDetailDTO {
  return {
    ...deliverySummaryDTO(d, teamId, lastForwardStatus(d)),
    ...deliveryRequestDTO(d),
    verificationDetail: d.verdict.steps.join('\n'),
    forwards: d.attempts.map(forwardDTO),
    forwardState: d.forwardState,
    nextTryAt: d.forwardState === 'pending' ? nextTryAt : null,
  };
}

/** What `tunnel.export` answers for a delivery: the file's name and its text (a curl script or a JSON fixture). */
export function exportDTO(
  id: string,
  format: 'curl' | 'fixture',
  curl: () => string,
  fixture: () => unknown,
): { format: 'curl' | 'fixture'; filename: string; content: string } {
  const safe = id.replace(/[^A-Za-z0-9_-]/g, '_');
  if (format === 'curl') return { format, filename: `delivery-${safe}.sh`, content: `${curl()}\n` };
  return { format, filename: `delivery-${safe}.json`, content: `${JSON.stringify(fixture(), null, 2)}\n` };
}

export function tunnelSide({ c, requireTeam }: Scope, media: MediaFiles): TunnelSide {
  const teamOf = (agentId: string): string | null => c.teamOfAgent(agentId);

  const summary = (d: StoredDelivery, lastStatus: number | null): DeliverySummaryDTO =>
    deliverySummaryDTO(d, teamOf(d.agentId), lastStatus);

  /**
   * A delivery by this app's id, else by the service's (x-delivery-id): of the records carrying it (the
   * delivery and its repeats), the first received — the one taken, the repeats being duplicates of it.
   */
  const detailOf = (id: string): DeliveryDetail => {
    const t = c.tunnel();
    const d = t.get(id) ?? byServiceId(id);
    if (!d) throw new AppError('not-found', 'NO_DELIVERY', `No delivery ${id} in the tunnel's log.`);
    return d;
  };

  const byServiceId = (id: string): DeliveryDetail | undefined => {
    const t = c.tunnel();
    let found: DeliveryDetail | undefined;
    let before: string | undefined;
    for (;;) {
      const page = t.list({ limit: 1000, ...(before !== undefined ? { before } : {}) });
      for (const item of page) {
        const d = t.get(item.id);
        if (d && serviceIdOf(d) === id) found = d;
      }
      if (page.length < 1000) return found;
      before = page[page.length - 1]!.id;
    }
  };

  const lastStatusOf = lastForwardStatus;

  // hasSecret is read from the keychain; status() is synchronous, so it answers from a cache that
  // is refreshed on every call (and set by every webhook.register).
  const secretCache = new Map<string, boolean>();
  const refreshSecrets = (): void => {
    for (const t of c.listTeams()) {
      for (const a of t.agents) {
        void c.hasSigningSecret(t.id, a.agentId).then((has) => secretCache.set(`${t.id}\u0000${a.agentId}`, has));
      }
    }
  };

  const counts = (): TunnelStatusDTO['counts'] => {
    const t = c.tunnel();
    // Refused requests are counted from their own store (they are never in the log).
    const refused = t.refusedStore.size;
    const logged = t.log.counts();
    return { ...logged, received: logged.received + refused, rejected: logged.rejected + refused };
  };

  /** The last registration by this install of each agent (one read of the history), and why it was set aside, if it was. */
  const lastRegistrations = async (): Promise<{ last: Map<string, RegistrationRecord>; problem: string | null }> => {
    const last = new Map<string, RegistrationRecord>();
    try {
      const { entries, problem } = await c.registrations.all();
      for (const e of entries) {
        const k = `${e.teamId ?? ''}\u0000${e.agentId}`;
        if (!last.has(k)) last.set(k, e);
      }
      return { last, problem };
    } catch (e) {
      return { last, problem: e instanceof Error ? e.message : String(e) };
    }
  };

  const status = async (): Promise<TunnelStatusDTO> => {
    // Opening the tunnel screen is the app asking for the receiver: start it (idempotent).
    if (c.tunnelUrl() === null) void c.startTunnel().catch(() => undefined);
    refreshSecrets();
    const history = await lastRegistrations();
    // The forwarder keeps one queue per agent id (tunnel.status()); agents it has no queue for are idle.
    let forwarding: Map<string, { localAppDownSince: number | null; pending: number }>;
    try {
      forwarding = new Map(
        c
          .tunnel()
          .status()
          .map((s) => [s.agentId, s]),
      );
    } catch {
      forwarding = new Map();
    }
    const listenUrl = c.tunnelUrl();
    const exposure = c.exposure.view();
    const exposedAt = exposure.state === 'up' ? exposure.url : null;
    const agents: TunnelAgentDTO[] = c.listTeams().flatMap((t) =>
      t.agents.map((a) => ({
        teamId: t.id,
        agentId: a.agentId,
        publicUrl: c.publicUrlOf(t.id, a.agentId),
        registration: registrationStatusDTO(
          history.last.get(`${t.id}\u0000${a.agentId}`) ?? null,
          {
            local: listenUrl !== null ? hookUrl(listenUrl, a.agentId) : null,
            // The exposure's URL, else this companion's fixed public address (a hub's --public-url).
            public: exposedAt !== null ? hookUrl(exposedAt, a.agentId) : c.publicHookOf(a.agentId),
          },
          c.clock.now(),
        ),
        hasSecret: secretCache.get(`${t.id}\u0000${a.agentId}`) ?? false,
        localAppDownSince: forwarding.get(a.agentId)?.localAppDownSince ?? null,
        pending: forwarding.get(a.agentId)?.pending ?? 0,
        receiverUrl: listenUrl !== null ? hookUrl(listenUrl, a.agentId) : null,
        exposedUrl: exposedAt !== null ? hookUrl(exposedAt, a.agentId) : null,
      })),
    );
    let n: TunnelStatusDTO['counts'];
    try {
      n = counts();
    } catch {
      n = { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 };
    }
    return {
      running: listenUrl !== null,
      listenUrl,
      forwardTo: c.forwardTo(),
      agents,
      counts: n,
      exposure: exposureDTO(exposure),
      receiverProblem: c.tunnelProblem(),
      portTaken: c.tunnelPortTaken(),
      registrationHistoryProblem: history.problem,
    };
  };

  const deliveries = (filter: DeliveryFilterDTO): DeliverySummaryDTO[] => {
    const t = c.tunnel();
    const q: Parameters<typeof t.list>[0] = { limit: 1000 };
    if (filter.agentId !== undefined) q.agentId = filter.agentId;
    if (filter.from !== undefined) q.from = filter.from.replace(/^\+/, '');
    if (filter.since !== undefined) q.since = filter.since;
    if (filter.until !== undefined) q.until = filter.until;
    if (filter.text !== undefined) q.text = filter.text;
    const limit = filter.limit ?? 50;
    const out: DeliverySummaryDTO[] = [];
    for (const item of t.list(q) as DeliveryListItem[]) {
      if (filter.verdict !== undefined && verdictOf(item.verdict.reason, item.simulated) !== filter.verdict) continue;
      if (filter.event !== undefined && item.summary.event !== filter.event) continue;
      const d = t.get(item.id);
      if (!d) continue;
      out.push(summary(d, lastStatusOf(d)));
      if (out.length >= limit) break;
    }
    return out;
  };

  const requests: TunnelRequests = {
    'tunnel.status': () => status(),
    'tunnel.start': async () => {
      // Why it could not start is in the status it answers (receiverProblem, portTaken).
      await c.startTunnel().catch(() => undefined);
      return status();
    },
    'tunnel.deliveries': async (filter) => deliveries(filter),
    'tunnel.delivery': async ({ id }) => {
      const d = detailOf(id);
      return deliveryDetailDTO(d, teamOf(d.agentId), c.tunnel().forwardStatusOf(d.agentId).nextRetryAt);
    },
    'tunnel.retryNow': async ({ agentId }) => {
      const t = c.tunnel();
      t.retryNow(agentId);
      return { pending: t.forwardStatusOf(agentId).pending };
    },
    'tunnel.replay': async ({ id, mode, body, url }) => {
      const d = detailOf(id);
      return forwardDTO(
        await c.tunnel().replay(d.id, {
          mode,
          ...(body !== undefined ? { body } : {}),
          ...(url !== undefined ? { url } : {}),
        }),
      );
    },
    'tunnel.simulate': async (input) => {
      const team =
        input.teamId !== undefined
          ? requireTeam(input.teamId)
          : c.listTeams().find((t) => t.agents.some((a) => a.agentId === input.agentId));
      const r = await c.tunnel().trigger({
        agentId: input.agentId,
        type: input.type,
        from: input.from,
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.caption !== undefined ? { caption: input.caption } : {}),
        ...(input.filename !== undefined ? { filename: input.filename } : {}),
        ...(team ? { serviceBaseUrl: team.baseUrl } : {}),
      });
      return summary(r.delivery, null);
    },
    'tunnel.export': async ({ id: asked, format, url }) => {
      const id = detailOf(asked).id;
      return exportDTO(
        id,
        format,
        () => c.tunnel().exportCurl(id, url !== undefined ? { url } : {}),
        () => c.tunnel().exportFixture(id),
      );
    },
    'tunnel.media': async ({ id }) => media.delivery(id, () => detailOf(id)),
    'tunnel.refused': async ({ limit, text }) =>
      c
        .tunnel()
        .refused({ limit: limit ?? 50, ...(text !== undefined ? { text } : {}) })
        .map(refusedDTO),
  };

  return {
    requests,
    summaryOf: (d) => summary(d, null),
    secretKept: (teamId, agentId) => void secretCache.set(`${teamId}\u0000${agentId}`, true),
  };
}
