// Replays a stored delivery to the local app, outside the queue:
//  - 'as-received': the original headers and raw bytes (a correct app rejects it once the
//    signature window has passed — that is the point of testing it);
//  - 're-signed': a fresh timestamp, signed with the agent's current secret, optionally an edited body.
// Each replay is logged as a forward attempt tagged with its mode (unless the log is open read-only);
// it never changes the queue.
import { signDelivery } from '../signature';
import type { Clock } from '../ports';
import { redactCredentials } from '../url';
import { originalHeaders, REPLAY_HEADER, tunnelHeaders } from './headers';
import type { IdGenerator } from './ids';
import type { EventLog } from './log';
import { postOnce, type Transport } from './transport';
import type { ForwardAttempt, ReplayMode, StoredDelivery } from './types';
import { CompanionError } from '../errors';

export class ReplayError extends CompanionError {
  constructor(
    readonly code: 'not-found' | 'no-target' | 'no-secret',
    message: string,
  ) {
    super(message);
    this.name = 'ReplayError';
  }
}

export interface ReplayOptions {
  mode: ReplayMode;
  /** 're-signed' only: a replacement body. */
  body?: string | Uint8Array;
  /** Another local URL than the agent's forward target. */
  url?: string;
  timeoutMs?: number;
  /**
   * The delivery itself, when it is kept elsewhere than this log (a team hub's database): replayed as
   * given, and the attempt is left for the caller to record.
   */
  delivery?: StoredDelivery;
}

export interface ReplayDeps {
  log: EventLog;
  clock: Clock;
  transport: Transport;
  newId: IdGenerator;
  tunnelName: string;
  getSecrets(agentId: string): Promise<string[]>;
  targetOf(agentId: string): string | undefined;
  defaultTimeoutMs: number;
}

/** The request a replay would send (also used by export). */
async function buildReplayRequest(
  deps: Pick<ReplayDeps, 'log' | 'clock' | 'tunnelName' | 'getSecrets'>,
  id: string,
  opts: Pick<ReplayOptions, 'mode' | 'body' | 'delivery'>,
): Promise<{ headers: Record<string, string>; body: Buffer; agentId: string }> {
  const d = opts.delivery ?? deps.log.get(id);
  if (!d) throw new ReplayError('not-found', `no delivery ${id}`);
  const original = Buffer.from(d.bodyBase64, 'base64');
  if (opts.mode === 'as-received') {
    return {
      agentId: d.agentId,
      body: original,
      headers: {
        ...originalHeaders(d.headers),
        ...tunnelHeaders(deps.tunnelName, d.id),
        [REPLAY_HEADER]: 'as-received',
      },
    };
  }
  const body =
    opts.body === undefined
      ? original
      : typeof opts.body === 'string'
        ? Buffer.from(opts.body, 'utf8')
        : Buffer.from(opts.body);
  const secret = (await deps.getSecrets(d.agentId)).find((s) => s.length > 0);
  if (secret === undefined)
    throw new ReplayError('no-secret', `no signing secret is configured for agent ${d.agentId}`);
  const contentType = originalHeaders(d.headers)['content-type'] ?? 'application/json';
  return {
    agentId: d.agentId,
    body,
    headers: {
      'content-type': contentType,
      ...signDelivery(secret, body, Math.floor(deps.clock.now() / 1000)),
      ...tunnelHeaders(deps.tunnelName, d.id),
      [REPLAY_HEADER]: 're-signed',
    },
  };
}

export async function replayDelivery(deps: ReplayDeps, id: string, opts: ReplayOptions): Promise<ForwardAttempt> {
  const req = await buildReplayRequest(deps, id, opts);
  const url = opts.url ?? deps.targetOf(req.agentId);
  if (url === undefined) throw new ReplayError('no-target', `no local app URL is configured for agent ${req.agentId}`);
  const at = deps.clock.now();
  const out = await postOnce(deps.transport, deps.clock, {
    url,
    headers: req.headers,
    body: req.body,
    timeoutMs: opts.timeoutMs ?? deps.defaultTimeoutMs,
  });
  const attempt: ForwardAttempt = {
    kind: 'attempt',
    id: deps.newId(),
    deliveryId: id,
    at,
    url: redactCredentials(url),
    ...out,
    replay: opts.mode,
  };
  // A reader (another process writes this log) sends the replay but cannot record it.
  if (!deps.log.readOnly && opts.delivery === undefined) await deps.log.appendAttempt(attempt);
  return attempt;
}
