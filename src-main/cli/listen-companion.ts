// `listen` beside the data folder's companion: the companion's receiver takes the deliveries (verifies, stores,
// acknowledges); this command attaches to it, prints each delivery, refusal and forward as the screens word
// them, and — with --forward-to — forwards every delivery it is told of to this listener's own app: each
// verified (or simulated) delivery once per listener, in per-agent order, with its original headers and bytes.
// Several listeners can attach at once; each gets every delivery. With no companion running, the command starts
// one for its duration (the same receiver, the same data folder), so one code path serves both. Through a
// team's hub the event stream resumes after a drop from its last event (app/client.ts) and a delivery is read
// again while the hub cannot answer for now, so a replica's death loses no delivery and repeats none.
import { request } from 'undici';
import type {
  DeliveryDetailDTO,
  DeliverySummaryDTO,
  ForwardResultDTO,
  TunnelStatusDTO,
} from '../../src-shared/contract';
import { forwardLine, refusedLine, summaryLine } from './delivery-lines';
import { teamNamed } from './companion-run';
import { redactCredentials } from '../../src-shared/url';
import type { ContractClient } from '../app/client';
import { serialByKey } from '../app/serial';
import { backoffDelay, type BackoffPolicy } from '../app/backoff';
import type { CliContext } from './context';
import { connectCompanion, sessionWords, type CompanionSession } from './companion';
import { hubSelfUrl } from './hub-client';
import { atTerminal, confirm } from './confirm';
import { CliFailure, UsageError } from './errors';
import { EXIT } from './exit-codes';
import type { Output } from './output';
import { untilAborted } from './io';

export interface CompanionListenFlags {
  team?: string | undefined;
  agent?: string[] | undefined;
  port?: number | undefined;
  forwardTo?: string | undefined;
  registerUrl?: string | undefined;
  yes?: boolean | undefined;
  configDir?: string | undefined;
  dataDir?: string | undefined;
}

/** Deliveries a listener passes on: authentic and new (duplicates were passed on the first time), or made up here. */
const FORWARDED_VERDICTS = new Set(['verified', 'verified-legacy-only', 'simulated']);

/** Headers not passed on: they describe this hop, not the delivery. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

/** A forward the app did not take is tried again after 1, 2, 4, 8 and 15 s, then given up by this listener (the delivery stays in the companion's log). */
const RETRY: BackoffPolicy = { baseMs: 1000, maxMs: 15_000, jitter: 0 };
const RETRIES = 5;

/**
 * Why reading a delivery may work if asked again: the companion did not answer (a hub replica died, the proxy
 * cut the connection) or a hub process is stopping or without its database for a moment.
 */
const UNANSWERED = new Set(['COMPANION_GONE', 'HUB_UNREACHABLE', 'DRAINING', 'DATABASE_UNAVAILABLE']);

/** The URL to POST to without its user and password, and those as a Basic authorization (the client drops them). */
function splitCredentials(url: string): { target: string; authorization: string | null } {
  const u = new URL(url);
  if (u.username === '' && u.password === '') return { target: url, authorization: null };
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  return { target: u.toString(), authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** Forwards deliveries to this listener's app: once each, one agent's in order, retried while the app is down. */
class ListenerForwards {
  private readonly done = new Set<string>();
  private readonly queue = serialByKey<string>();
  private readonly target: string;
  private readonly authorization: string | null;
  /** The URL as printed: without its user and password (the POST still carries them). */
  readonly url: string;

  constructor(
    private readonly ctx: CliContext,
    private readonly out: Output,
    private readonly client: ContractClient,
    url: string,
  ) {
    ({ target: this.target, authorization: this.authorization } = splitCredentials(url));
    this.url = redactCredentials(url);
  }

  take(d: DeliverySummaryDTO): void {
    if (!FORWARDED_VERDICTS.has(d.verdict) || this.done.has(d.id)) return;
    this.done.add(d.id);
    // A hub's event carries a small delivery whole: forwarded as it is, without asking for it.
    const whole = d.request;
    void this.queue(d.agentId ?? '', () => this.forward(d.id, whole));
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** The delivery as stored; asked again (by the forward's waits) while the companion cannot answer for now. */
  private async detail(id: string): Promise<DeliveryDetailDTO | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client.request('tunnel.delivery', { id });
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code !== 'string' || !UNANSWERED.has(code) || attempt >= RETRIES || this.ctx.signal.aborted) {
          this.out.warn(`${id}: could not be read from the companion (${e instanceof Error ? e.message : String(e)})`);
          return null;
        }
        await this.wait(backoffDelay(RETRY, attempt + 1));
      }
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      this.ctx.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
    });
  }

  private async forward(id: string, whole?: DeliverySummaryDTO['request']): Promise<void> {
    const detail = whole ?? (await this.detail(id));
    if (!detail) return;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(detail.headers)) if (!HOP_HEADERS.has(k.toLowerCase())) headers[k] = v;
    if (this.authorization !== null) {
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
      headers.authorization = this.authorization;
    }
    for (let attempt = 0; ; attempt++) {
      if (this.ctx.signal.aborted) return;
      const started = Date.now();
      let result: ForwardResultDTO;
      try {
        const res = await request(this.target, {
          method: 'POST',
          headers,
          body: detail.rawBody,
          headersTimeout: 30_000,
          bodyTimeout: 30_000,
          signal: this.ctx.signal,
        });
        const text = (await res.body.text()).slice(0, 200);
        result = {
          deliveryId: id,
          at: this.ctx.clock.now(),
          url: this.url,
          status: res.statusCode,
          durationMs: Date.now() - started,
          responseBody: text,
        };
      } catch (e) {
        if (this.ctx.signal.aborted) return;
        result = {
          deliveryId: id,
          at: this.ctx.clock.now(),
          url: this.url,
          status: null,
          durationMs: Date.now() - started,
          error: (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e)),
        };
      }
      this.out.event(
        { event: 'forward', listener: true, forward: result },
        `${result.deliveryId}${forwardLine(result)}`,
      );
      const ok = result.status !== null && result.status < 500 && result.status !== 429;
      if (ok || attempt >= RETRIES) return;
      await this.wait(backoffDelay(RETRY, attempt + 1));
    }
  }
}

export async function listenThroughCompanion(ctx: CliContext, out: Output, f: CompanionListenFlags): Promise<number> {
  // Refused before anything starts: no companion, no receiver, nothing registered.
  if (f.registerUrl !== undefined && f.yes !== true && !atTerminal(ctx))
    throw new UsageError(
      `registering replaces the webhook of ${f.agent?.length ? f.agent.join(', ') : `every agent of ${f.team !== undefined ? `the team "${f.team}"` : 'the saved teams'}`} (the URL each had stops receiving) and the service issues a new signing secret; there is no terminal to ask at (stdin is not a TTY): give --yes to register anyway`,
    );
  const session: CompanionSession = await connectCompanion(ctx, out, f, {
    none: 'start',
    companion: { startTunnel: true, ...(f.port !== undefined ? { tunnelPort: f.port } : {}) },
  });
  const { client } = session;
  try {
    if (session.where !== 'in-process' && f.port !== undefined)
      throw new UsageError(
        session.hub
          ? `--port: ${sessionWords(session)} receives the deliveries at its own public URL and sends them to this listener; leave --port out`
          : `--port: ${sessionWords(session)} runs the receiver on its own port; leave --port out (change it in its settings), or stop that companion first`,
      );
    const team = f.team !== undefined ? await teamNamed(client, f.team) : null;
    let status: TunnelStatusDTO = await client.request('tunnel.start', {});
    if (!status.running || status.listenUrl === null)
      throw new CliFailure(
        `the companion's receiver is not running: ${status.receiverProblem ?? (status.portTaken ? `port ${status.portTaken.port} is taken by ${status.portTaken.owner}${status.portTaken.alternative ? ` (port ${status.portTaken.alternative} is free: set it as the tunnel port)` : ''}` : 'it could not start')}`,
        EXIT.failure,
        'RECEIVER_DOWN',
      );
    const pool = status.agents.filter((a) => !team || a.teamId === team.teamId);
    let agents = pool;
    if (f.agent?.length) {
      agents = f.agent.map((want) => {
        const a =
          pool.find((x) => x.agentId === want) ?? pool.find((x) => x.agentId.toLowerCase() === want.toLowerCase());
        if (!a)
          throw new UsageError(
            `--agent: ${team ? `the team "${team.label}" has` : 'the saved teams have'} no agent "${want}"`,
          );
        return a;
      });
    }
    const wanted = new Set(agents.map((a) => a.agentId));
    const mine = (agentId: string | null) => agentId !== null && wanted.has(agentId);

    const forwards = f.forwardTo !== undefined ? new ListenerForwards(ctx, out, client, f.forwardTo) : null;
    client.on('tunnel.delivery', (d) => {
      if (!mine(d.agentId)) return;
      // Printed as a delivery is listed: its request (a hub's event carries it for the forward) stays out.
      const { request: _whole, ...summary } = d;
      out.event({ event: 'delivery', delivery: summary }, summaryLine(d));
      forwards?.take(d);
    });
    client.on('tunnel.refused', (r) => {
      if (r.agentId !== null && !mine(r.agentId)) return;
      out.event({ event: 'refused', refused: r }, refusedLine(r));
    });
    client.on('tunnel.forward', (a) => {
      if (forwards) return; // this listener prints its own forwards; the companion's are on its screen
      out.event(
        { event: 'forward', listener: false, forward: a },
        `${a.deliveryId}${forwardLine(a)} (the companion's own)`,
      );
    });
    const stopped = new Promise<string>((r) => client.onClose(r));
    await client.listening();

    // Registered only once this listener hears of every delivery: the first may come at once.
    if (f.registerUrl !== undefined) {
      if (!team && new Set(agents.map((a) => a.teamId)).size !== 1)
        throw new UsageError('--register-url: name the team with --team');
      const yes = f.yes === true;
      // "self" on a hub: the hub's public URL, where the service reaches its receiver through the team's proxy.
      const self = session.hub ? hubSelfUrl(session.hub) : status.listenUrl;
      for (const a of agents) {
        const base = f.registerUrl === 'self' ? self : f.registerUrl.replace(/\/+$/, '');
        const publicUrl = `${base}/hooks/${encodeURIComponent(a.agentId)}`;
        if (
          !(await confirm(ctx, `Point the webhook of ${a.agentId} at ${publicUrl}? ${a.registration.takeover}`, yes))
        ) {
          out.warn(`not registering ${a.agentId}: its webhook is left as it was`);
          continue;
        }
        const r = await client.request('webhook.register', { teamId: a.teamId, agentId: a.agentId, publicUrl });
        out.event(
          { event: 'registered', teamId: a.teamId, agentId: a.agentId, registration: r },
          `registered ${a.agentId}: the service delivers to ${publicUrl}`,
        );
      }
      status = await client.request('tunnel.status', {});
    }

    const shownAgents = status.agents.filter((a) => wanted.has(a.agentId));
    // On a hub the receiver the service reaches is the hub's public URL (the replica's own port is its loopback).
    const receiverAt = session.hub ? (session.hub.publicUrl?.replace(/\/+$/, '') ?? null) : status.listenUrl;
    const hookOf = (a: TunnelStatusDTO['agents'][number]): string =>
      session.hub
        ? (a.publicUrl ?? (receiverAt !== null ? `${receiverAt}/hooks/${a.agentId}` : 'no public URL'))
        : (a.receiverUrl ?? `${status.listenUrl}/hooks/${a.agentId}`);
    out.event(
      {
        event: 'ready',
        url: receiverAt,
        companion:
          session.where === 'attached'
            ? { pid: session.owner?.pid ?? null, shell: session.owner?.shell ?? null }
            : null,
        forwardTo: forwards?.url ?? null,
        agents: shownAgents,
      },
      [
        receiverAt !== null
          ? `receiving through ${sessionWords(session)} at ${receiverAt}`
          : `receiving through ${sessionWords(session)}, which has no public URL (it runs without --public-url): the service cannot reach it`,
        ...shownAgents.map(
          (a) => `  ${a.agentId}: ${hookOf(a)}${a.registration.text ? ` — ${a.registration.text}` : ''}`,
        ),
        ...(shownAgents.some((a) => a.registration.state === 'stale')
          ? ['  to register this receiver again: run listen with --register-url self (a service on this machine)']
          : []),
        f.forwardTo !== undefined
          ? `  forwarding each delivery to ${forwards?.url} (this listener's own; the companion's forward target is unchanged)`
          : '  not forwarding (give --forward-to URL)',
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
    const why = await Promise.race([untilAborted(ctx.signal), stopped]);
    if (why !== null) {
      out.warn(`${why}: no more deliveries reach this listener`);
      return EXIT.failure;
    }
    const stillPointing = shownAgents.filter((a) => a.publicUrl !== null);
    out.event(
      { event: 'stopped' },
      session.where === 'in-process' && stillPointing.length > 0
        ? `stopped. The webhooks of ${stillPointing.map((a) => a.agentId).join(', ')} still point at this receiver, which no longer listens: deliveries wait at the service until a companion runs again (\`channel-companion up\`)`
        : 'stopped',
    );
    return EXIT.ok;
  } finally {
    await session.close();
  }
}
