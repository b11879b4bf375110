// createServiceClient(): the ServiceClient of service.ts over undici. One client per team (API key).
import { randomUUID } from 'node:crypto';
import { Deadlines } from '../deadlines';
import { sleep, systemClock, type Clock } from '../ports';
import { httpUrlProblem, insecureKeyProblem, normalizeBaseUrl } from '../url';
import { createChatStream } from './chat-stream';
import { SendBudget } from './budget';
import { Aborted, InvalidRequest, NetworkError, NotFound, UnreadableResponse } from './errors';
import { readErrorBody } from './error-map';
import { createDefaultDispatcher, joinUrl, requestJson, type HttpContext, type JsonResponse } from './http';
import { downloadMedia } from './media';
import { parseChatResult } from './chat-answer';
import {
  parseContactCheck,
  parseOptionalSessionStatus,
  parseSendResult,
  parseSessionStatus,
  parseSettings,
  parseWebhookConfig,
  ShapeError,
} from './parse';
import { rawResponse, redact } from './raw';
import { normalizePhoneDigits } from './phone';
import { hasRateLimit } from './rate-limit';
import { withSendRetry } from './retry';
import { prepareSendRequest } from './send-request';
import type { CallOptions, ContactPathForm, ServiceClient, ServiceClientOptions } from './service';
import type { ChannelSettings, ChatRequest, RateLimitInfo } from './types';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_SEND_MAX_RETRIES = 4;
/** Pause before the single retry of a GET after a network error. */
const GET_RETRY_DELAY_MS = 250;

function requireId(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidRequest({ message: `${what} is required.` });
  return value.trim();
}

function checkedBaseUrl(raw: string, allowInsecureHttp: boolean): string {
  const problem = httpUrlProblem(raw, { noCredentials: true, noQuery: true });
  if (problem !== null) throw new InvalidRequest({ message: `The service base URL ${problem}.` });
  const insecure = insecureKeyProblem(raw, allowInsecureHttp);
  if (insecure !== null) throw new InvalidRequest({ code: 'INSECURE_HTTP', message: `${insecure}.` });
  return normalizeBaseUrl(raw);
}

/** Which form of the number each service takes in the contacts path, learnt per base URL. */
const sharedContactPathForms = new Map<string, ContactPathForm>();

/**
 * Reads a 2xx answer with `parse`; an answer it cannot read becomes UnreadableResponse holding what
 * came (an error the body names, if any, is in the message).
 */
function readAnswer<T>(res: JsonResponse, secret: string, parse: (body: unknown) => T): T {
  try {
    // A body that is there but is not JSON (a page, text) is no shape at all; `undefined` means empty.
    if (res.json === undefined && res.text.trim() !== '')
      throw new ShapeError(
        'UNREADABLE_RESPONSE',
        'The service answered with a body that is not JSON, which the client could not read.',
      );
    return parse(res.json);
  } catch (err) {
    if (!(err instanceof ShapeError)) throw err;
    const said = readErrorBody(res.json);
    const detail =
      said.code || said.message
        ? redact(` It said: ${[said.code, said.message].filter(Boolean).join(': ')}.`, secret)
        : '';
    throw new UnreadableResponse({
      status: res.status,
      code: err.code,
      message: `${err.message}${detail}`,
      rateLimit: res.rateLimit,
      raw: rawResponse(res.status, res.contentType, res.text, secret),
    });
  }
}

function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Aborted();
}

export function createServiceClient(opts: ServiceClientOptions): ServiceClient {
  if (typeof opts.apiKey !== 'string' || opts.apiKey.trim() === '')
    throw new InvalidRequest({ message: 'An API key is required.' });
  const baseUrl = checkedBaseUrl(opts.baseUrl, opts.allowInsecureHttp === true);
  const contactForms = opts.contactPathForms ?? sharedContactPathForms;
  const clock: Clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const ownsDispatcher = opts.dispatcher === undefined;
  const dispatcher = opts.dispatcher ?? createDefaultDispatcher();
  let latestRateLimit: RateLimitInfo = {};
  let closed = false;

  const budget = new SendBudget({
    limit: opts.sendBudget?.limit,
    windowMs: opts.sendBudget?.windowMs,
    marginMs: opts.sendBudget?.marginMs,
    clock,
    newId: () => randomUUID(),
  });

  const ctx: HttpContext = {
    baseUrl,
    apiKey: opts.apiKey,
    dispatcher,
    clock,
    deadlines: new Deadlines(clock),
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    onRateLimit(info, req) {
      if (!hasRateLimit(info)) return;
      latestRateLimit = info;
      // The send ceiling is read from send answers only: chat has its own, unpublished limit.
      if (req.method === 'POST' && req.url.endsWith('/whatsapp/messages') && info.limit !== undefined)
        budget.setLimit(info.limit);
    },
  };

  const agentPath = (agentId: string, rest: string) =>
    joinUrl(baseUrl, `/api/v1/agents/${encodeURIComponent(requireId(agentId, 'agentId'))}${rest}`);
  const ensureOpen = () => {
    if (closed) throw new Aborted({ message: 'The service client is closed.' });
  };

  /** GETs are idempotent: one retry after a network error. */
  async function idempotent<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      try {
        await sleep(clock, GET_RETRY_DELAY_MS, signal);
      } catch {
        throw new Aborted();
      }
      return fn();
    }
  }

  const client: ServiceClient = {
    baseUrl,

    get rateLimit() {
      return { ...latestRateLimit };
    },

    async startPairing(agentId, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/whatsapp/session');
      checkSignal(o.signal);
      const res = await requestJson(ctx, { method: 'POST', url, signal: o.signal, timeoutMs: o.timeoutMs });
      return readAnswer(res, opts.apiKey, parseOptionalSessionStatus); // ASSUMPTION A-SESSION-POST
    },

    async getSession(agentId, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/whatsapp/session');
      checkSignal(o.signal);
      const res = await idempotent(o.signal, () =>
        requestJson(ctx, { method: 'GET', url, signal: o.signal, timeoutMs: o.timeoutMs }),
      );
      return readAnswer(res, opts.apiKey, parseSessionStatus);
    },

    async send(agentId, req, o = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/whatsapp/messages');
      const body = prepareSendRequest(req);
      checkSignal(o.signal);
      const maxRetries = Math.max(0, Math.floor(o.maxRetries ?? DEFAULT_SEND_MAX_RETRIES));
      const retry = { maxRetries, signal: o.signal, onRetry: o.onRetry, shouldKeepRetrying: o.shouldKeepRetrying };
      return withSendRetry({ clock, random }, retry, async () => {
        await budget.acquire(
          { agentId, to: body.to },
          o.signal,
          o.onQueued ? (q) => o.onQueued?.({ id: q.id, position: q.position, waitMs: q.waitMs }) : undefined,
        );
        const res = await requestJson(ctx, {
          method: 'POST',
          url,
          json: body,
          signal: o.signal,
          timeoutMs: o.timeoutMs,
        });
        return readAnswer(res, opts.apiKey, (b) => parseSendResult(b, body.to));
      });
    },

    async setWebhook(agentId, webhookUrl, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/whatsapp/webhook');
      const problem = httpUrlProblem(requireId(webhookUrl, 'The webhook url'));
      if (problem !== null) throw new InvalidRequest({ message: `The webhook url ${problem}.` });
      checkSignal(o.signal);
      const res = await requestJson(ctx, {
        method: 'PUT',
        url,
        json: { url: webhookUrl.trim() },
        signal: o.signal,
        timeoutMs: o.timeoutMs,
      });
      return readAnswer(res, opts.apiKey, (b) => parseWebhookConfig(b, webhookUrl.trim()));
    },

    async downloadMedia(agentId, messageId, destPath, o = {}) {
      ensureOpen();
      const id = requireId(messageId, 'messageId');
      const url = agentPath(agentId, `/whatsapp/media/${encodeURIComponent(id)}`);
      checkSignal(o.signal);
      return downloadMedia(ctx, url, id, destPath, o);
    },

    async checkContact(agentId, phone, o: CallOptions = {}) {
      ensureOpen();
      const digits = normalizePhoneDigits(phone);
      checkSignal(o.signal);
      // ASSUMPTION A-CONTACT-PATH: the number as `to` is sent (+, percent-encoded); a service that
      // refuses that form (400/404/422) is asked once in the other, and the form that worked is kept.
      const first = contactForms.get(baseUrl) ?? 'plus';
      const ask = (form: ContactPathForm) => {
        const url = agentPath(
          agentId,
          `/whatsapp/contacts/${form === 'plus' ? encodeURIComponent(`+${digits}`) : digits}`,
        );
        return idempotent(o.signal, () =>
          requestJson(ctx, { method: 'GET', url, signal: o.signal, timeoutMs: o.timeoutMs }),
        );
      };
      let res: JsonResponse;
      try {
        res = await ask(first);
        contactForms.set(baseUrl, first);
      } catch (err) {
        if (!(err instanceof InvalidRequest || err instanceof NotFound)) throw err;
        const other: ContactPathForm = first === 'plus' ? 'digits' : 'plus';
        try {
          res = await ask(other);
        } catch {
          throw err;
        }
        contactForms.set(baseUrl, other);
      }
      return readAnswer(res, opts.apiKey, (b) => parseContactCheck(b, digits));
    },

    async updateSettings(agentId, patch, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/whatsapp/settings');
      const body: Partial<ChannelSettings> = {};
      for (const key of ['groups', 'readReceipts', 'deliveryReceipts'] as const) {
        const v = patch?.[key];
        if (v === undefined) continue;
        if (typeof v !== 'boolean') throw new InvalidRequest({ message: `Setting "${key}" must be true or false.` });
        body[key] = v;
      }
      if (Object.keys(body).length === 0)
        throw new InvalidRequest({ message: 'No setting to change: give groups, readReceipts or deliveryReceipts.' });
      checkSignal(o.signal);
      // ASSUMPTION A-SETTINGS
      const res = await requestJson(ctx, {
        method: 'PATCH',
        url,
        json: body,
        signal: o.signal,
        timeoutMs: o.timeoutMs,
      });
      return readAnswer(res, opts.apiKey, (b) => parseSettings(b, body));
    },

    async chat(agentId, req, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/chat');
      const body = checkChatRequest(req);
      checkSignal(o.signal);
      const res = await requestJson(ctx, { method: 'POST', url, json: body, signal: o.signal, timeoutMs: o.timeoutMs });
      // ASSUMPTION A-CHAT-RESP: a plain-text answer is the reply itself.
      const plainText = res.json === undefined && /^text\/plain/i.test(res.contentType ?? '') && res.text.trim() !== '';
      if (plainText) return { reply: res.text, conversationId: null, actions: [], usage: {} };
      return readAnswer(res, opts.apiKey, parseChatResult);
    },

    chatStream(agentId, req, o: CallOptions = {}) {
      ensureOpen();
      const url = agentPath(agentId, '/chat');
      const body = checkChatRequest(req);
      return createChatStream(ctx, url, body, o); // ASSUMPTION A-CHAT-STREAM
    },

    sendBudget: () => budget.snapshot(),
    cancelQueued: (id) => budget.cancel(id),

    async close() {
      if (closed) return;
      closed = true;
      budget.dispose();
      if (ownsDispatcher) await dispatcher.close();
    },
  };
  return client;
}

function checkChatRequest(req: ChatRequest): ChatRequest {
  if (typeof req?.message !== 'string' || req.message.trim() === '')
    throw new InvalidRequest({ message: 'The chat message is empty.' });
  if (typeof req.user_id !== 'string' || req.user_id.trim() === '')
    throw new InvalidRequest({ message: 'user_id is required to keep the conversation together.' });
  return { message: req.message, user_id: req.user_id };
}
