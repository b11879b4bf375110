// The emulated service API under /api/v1/agents/:agentId/…
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Clock } from '../core/ports';
import { sleep } from '../core/ports';
import { handleChat, type ChatDeps } from './chat';
import { resolveDialect, type Dialect } from './dialect';
import { rateWire } from './dialect-wire';
import { EmulatorError, invalid } from './errors';
import type { Faults } from './faults';
import { bearerKey, parseWith, readJson, segments, sendError, sendJson } from './http';
import { admitSend, DEFAULT_SENDS_PER_MINUTE, rateHeaders } from './limits';
import type { BlobStore } from './media';
import { pushBounded, type Agent, type SentMessage, type Team, type World } from './model';
import type { Sessions } from './session';
import { isHttpUrl } from '../../src-shared/url';
import { httpUrl, isRecipient, phoneDigits } from './validate';

export interface ServiceCounters {
  serviceRequests: number;
  sends: number;
  chats: number;
}

export interface ServiceDeps {
  world: World;
  sessions: Sessions;
  faults: Faults;
  blobs: BlobStore;
  clock: Clock;
  counters: ServiceCounters;
  streams: ChatDeps['streams'];
  mediaOrigin(): string;
  /** Aborted on close(): ends slow-fault waits. */
  stop: AbortSignal;
  /** Dialect names every team speaks unless it or its agent says otherwise. */
  defaultDialect: readonly string[];
  /** A send went out (scripted contacts answer it). */
  onSent?(m: SentMessage): void;
  /** An agent's webhook was set: runs before the PUT is answered (deliverOnRegister). */
  registered?(agentId: string): Promise<void>;
}

const sendSchema = z.looseObject({
  to: z.string({ error: 'to is required' }).max(128),
  text: z.string().max(65_536).optional(),
  imageUrl: z.string().max(2048).optional(),
  documentUrl: z.string().max(2048).optional(),
  documentFilename: z.string().min(1).max(255).optional(),
});

const webhookSchema = z.looseObject({ url: httpUrl });

// ASSUMPTION A-SETTINGS
const settingsSchema = z
  .strictObject({
    groups: z.boolean().optional(),
    readReceipts: z.boolean().optional(),
    deliveryReceipts: z.boolean().optional(),
  })
  .refine((s) => Object.keys(s).length > 0, 'give at least one of groups, readReceipts, deliveryReceipts');

const ROUTES: Record<string, string[]> = {
  'whatsapp/session': ['GET', 'POST'],
  'whatsapp/messages': ['POST'],
  'whatsapp/webhook': ['PUT'],
  'whatsapp/media/*': ['GET'],
  'whatsapp/contacts/*': ['GET'],
  'whatsapp/settings': ['PATCH'],
  chat: ['POST'],
};

export async function handleService(req: IncomingMessage, res: ServerResponse, deps: ServiceDeps): Promise<void> {
  deps.counters.serviceRequests++;
  const pathname = new URL(req.url ?? '/', 'http://service.invalid').pathname;
  const key = bearerKey(req);
  const team = key === null ? undefined : deps.world.teamsByKey.get(key);
  const agentId = /^\/api\/v1\/agents\/([^/]+)/.exec(pathname)?.[1];
  const agent = team && agentId !== undefined ? deps.world.agents.get(safeDecode(agentId)) : undefined;
  const dialect = resolveDialect(
    deps.defaultDialect,
    team?.dialect,
    agent?.teamId === team?.id ? agent?.dialect : undefined,
  );
  // ASSUMPTION A-RATE: X-RateLimit-Limit on every response.
  const headers = rateWire(dialect, { limit: team?.sendsPerMinute ?? DEFAULT_SENDS_PER_MINUTE }, deps.clock.now());
  try {
    const fault = deps.faults.take(pathname);
    if (fault) {
      switch (fault.kind) {
        case 'reset':
          req.socket.destroy();
          return;
        case '500':
          throw new EmulatorError(500, 'INTERNAL_ERROR', 'injected fault: internal error');
        case '503':
          throw new EmulatorError(503, 'SERVICE_UNAVAILABLE', 'injected fault: service unavailable');
        case '429':
          throw new EmulatorError(
            429,
            'RATE_LIMITED',
            'injected fault: rate limited',
            rateWire(
              dialect,
              {
                limit: team?.sendsPerMinute ?? DEFAULT_SENDS_PER_MINUTE,
                resetMs: deps.clock.now() + fault.retryAfterSeconds * 1000,
                retryAfterSec: fault.retryAfterSeconds,
              },
              deps.clock.now(),
            ),
          );
        case 'slow':
          try {
            await sleep(deps.clock, fault.delayMs, deps.stop);
          } catch {
            req.socket.destroy();
            return;
          }
          break;
      }
    }
    await route(req, res, pathname, team, headers, { ...deps, dialect });
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof EmulatorError) sendError(res, err, headers, dialect);
    else sendError(res, new EmulatorError(500, 'INTERNAL_ERROR', 'internal emulator error'), headers, dialect);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  team: Team | undefined,
  headers: Record<string, string>,
  deps: ServiceDeps & { dialect: Dialect },
): Promise<void> {
  const seg = segments(pathname);
  if (seg[0] !== 'api' || seg[1] !== 'v1' || seg[2] !== 'agents' || seg[3] === undefined) {
    throw new EmulatorError(404, 'NOT_FOUND', 'no such endpoint');
  }
  const rest = seg.slice(4);
  const pattern =
    rest.length === 3 && (rest[1] === 'media' || rest[1] === 'contacts') ? `${rest[0]}/${rest[1]}/*` : rest.join('/');
  const methods = ROUTES[pattern];
  if (!methods) throw new EmulatorError(404, 'NOT_FOUND', 'no such endpoint');
  // ASSUMPTION A-AUTH, A-NOT-FOUND
  if (!team) throw new EmulatorError(401, 'UNAUTHORIZED', 'missing or invalid API key');
  const agent = deps.world.agents.get(seg[3]);
  if (!agent || agent.teamId !== team.id)
    throw new EmulatorError(404, 'AGENT_NOT_FOUND', 'no such agent for this API key');
  const method = req.method ?? 'GET';
  if (!methods.includes(method)) {
    throw new EmulatorError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`, { allow: methods.join(', ') });
  }
  const { clock, sessions } = deps;
  switch (pattern) {
    case 'whatsapp/session':
      if (method === 'POST') {
        // ASSUMPTION A-SESSION-POST: 202 with the status object.
        sessions.startPairing(agent);
        sendJson(res, 202, await sessions.status(agent), headers);
      } else {
        sendJson(res, 200, await sessions.status(agent), headers);
      }
      return;
    case 'whatsapp/messages':
      return send(req, res, agent, team, deps);
    case 'whatsapp/webhook': {
      const input = parseWith(webhookSchema, await readJson(req));
      // ASSUMPTION A-WEBHOOK-RESP
      agent.webhook = {
        mode: 'passthrough',
        url: input.url,
        secret: `whsec_${randomBytes(32).toString('hex')}`,
        events: ['message.received'],
        updatedAt: new Date(clock.now()).toISOString(),
      };
      const answer = { ...agent.webhook, events: [...agent.webhook.events] };
      await deps.registered?.(agent.id);
      sendJson(res, 200, answer, headers);
      return;
    }
    case 'whatsapp/media/*': {
      const record = agent.inbound.get(rest[2]!);
      if (!record) throw new EmulatorError(404, 'MESSAGE_NOT_FOUND', 'no such message');
      if (!record.media) throw new EmulatorError(404, 'MEDIA_NOT_FOUND', 'this message carries no media');
      if (record.mediaExpired) throw new EmulatorError(410, 'MEDIA_EXPIRED', 'the media of this message has expired');
      const token = deps.blobs.issue(record.media);
      res.writeHead(302, { ...headers, location: `${deps.mediaOrigin()}/blob/${token}`, 'content-length': 0 });
      res.end();
      return;
    }
    case 'whatsapp/contacts/*': {
      const digits = phoneDigits(rest[2]!);
      if (digits === null) throw invalid('phone must be an E.164 number (8–15 digits, optional +)');
      // Dialects that take one form only (the segment as sent: %2B or + means a plus).
      const asSent = pathname.split('/').at(-1) ?? '';
      const plus = /^(%2b|\+)/i.test(asSent);
      if (deps.dialect.contactPath === 'plus' && !plus)
        throw new EmulatorError(404, 'NOT_FOUND', 'no such contact path; give the number as %2B<digits>');
      if (deps.dialect.contactPath === 'digits' && plus) throw invalid('phone must be digits only, without +');
      sendJson(
        res,
        200,
        { phone: digits, exists: deps.world.contacts.has(digits), jid: `${digits}@s.whatsapp.net` },
        headers,
      );
      return;
    }
    case 'whatsapp/settings': {
      const input = parseWith(settingsSchema, await readJson(req));
      Object.assign(agent.settings, input);
      sendJson(res, 200, { ...agent.settings }, headers);
      return;
    }
    case 'chat': {
      const body = await readJson(req);
      deps.counters.chats++;
      await handleChat(agent, body, req, res, { clock, streams: deps.streams, headers, dialect: deps.dialect });
      return;
    }
  }
}

async function send(
  req: IncomingMessage,
  res: ServerResponse,
  agent: Agent,
  team: Team,
  deps: ServiceDeps & { dialect: Dialect },
): Promise<void> {
  const { clock, sessions, dialect } = deps;
  const limitHeaders = rateHeaders(team, clock.now(), dialect);
  try {
    const input = parseWith(sendSchema, await readJson(req));
    if (!isRecipient(input.to)) throw invalid('to must be an E.164 number or a JID (…@s.whatsapp.net, …@g.us)');
    if (input.imageUrl !== undefined && input.documentUrl !== undefined)
      throw invalid('give imageUrl or documentUrl, not both');
    for (const field of ['imageUrl', 'documentUrl'] as const) {
      const url = input[field];
      if (url !== undefined && !isHttpUrl(url)) throw invalid(`${field} must be an absolute http(s) URL`);
    }
    const hasText = input.text !== undefined && input.text.trim() !== '';
    if (!hasText && input.imageUrl === undefined && input.documentUrl === undefined)
      throw invalid('give text, imageUrl or documentUrl');
    const state = sessions.state(agent);
    if (state === 'unlinked' || state === 'pairing') {
      throw new EmulatorError(409, 'CHANNEL_NOT_CONFIGURED', 'the number is not linked; a QR scan is needed');
    }
    if (state === 'reconnecting')
      throw new EmulatorError(503, 'CHANNEL_RECONNECTING', 'the connection is coming back; retry later');
    const now = clock.now();
    admitSend(team, now, dialect);
    deps.counters.sends++;
    const type = input.imageUrl !== undefined ? 'image' : input.documentUrl !== undefined ? 'document' : 'text';
    const messageId = `msg_${randomBytes(10).toString('hex')}`;
    const timestamp = new Date(now).toISOString();
    const sent: SentMessage = {
      messageId,
      agentId: agent.id,
      teamId: team.id,
      to: input.to,
      type,
      text: input.text ?? null,
      imageUrl: input.imageUrl ?? null,
      documentUrl: input.documentUrl ?? null,
      documentFilename: input.documentFilename ?? null,
      timestamp,
    };
    pushBounded(deps.world.sent, sent);
    deps.onSent?.(sent);
    // ASSUMPTION A-SEND-EXTRA
    sendJson(res, 200, { status: 'sent', messageId, to: input.to, type, timestamp }, rateHeaders(team, now, dialect));
  } catch (err) {
    if (err instanceof EmulatorError)
      throw new EmulatorError(err.status, err.code, err.message, { ...limitHeaders, ...err.headers });
    throw err;
  }
}
