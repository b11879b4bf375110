// Runs one chat turn against a ServiceClient: streamed (with a single-response fallback when the
// stream fails before its first token) or single. Produces the TurnRecord and emits TurnEvents.
import { Aborted, isServiceError, type ServiceErrorDTO } from '../api/errors';
import { mapErrorResponse } from '../api/error-map';
import type { ChatStream, ServiceClient } from '../api/service';
import type { ChatResult, ChatStreamEvent } from '../api/types';
import type { Clock } from '../ports';
import type { TurnEvent, TurnMode, TurnRecord } from './types';

export interface TurnSpec {
  turnId: string;
  teamId: string;
  agentId: string;
  userId: string;
  message: string;
  stream: boolean;
}

type StreamError = Extract<ChatStreamEvent, { type: 'error' }>;

/** A stream error event as an error DTO (status → class by meaning; no status → transport kinds). */
function streamErrorToDTO(ev: StreamError): ServiceErrorDTO {
  let dto: ServiceErrorDTO;
  if (ev.status !== undefined && ev.status >= 400) {
    dto = mapErrorResponse(ev.status, JSON.stringify({ error: { code: ev.code, message: ev.message } }), {}).toDTO();
  } else {
    const kind = ev.code === 'NETWORK_ERROR' ? 'network-error' : ev.code === 'TIMEOUT' ? 'timeout' : 'server-error';
    dto = { kind, code: ev.code, message: ev.message, rateLimit: {} };
    if (ev.status !== undefined) dto.status = ev.status;
  }
  if (ev.raw !== undefined) dto.raw = ev.raw;
  return dto;
}

/**
 * Errors where asking again without streaming cannot help (key, quota, input, link, rate), or would
 * send the message twice: a reply that came but could not be read was an answer all the same.
 */
function fallbackHelps(dto: ServiceErrorDTO): boolean {
  if (dto.raw !== undefined && dto.status !== undefined && dto.status < 300) return false;
  return !['key-rejected', 'quota-exceeded', 'invalid-request', 'needs-scan', 'rate-limited', 'aborted'].includes(
    dto.kind,
  );
}

function unknownErrorDTO(err: unknown): ServiceErrorDTO {
  if (isServiceError(err)) return err.toDTO();
  return {
    kind: 'server-error',
    code: 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    rateLimit: {},
  };
}

export async function runTurn(
  clientP: Promise<ServiceClient>,
  spec: TurnSpec,
  clock: Clock,
  signal: AbortSignal,
  emit: (ev: TurnEvent) => void,
  /** Told of the stream once it is open, to read its frames as received. */
  onStream?: (stream: ChatStream) => void,
): Promise<TurnRecord> {
  const startedAt = clock.now();
  let reply = '';
  let result: ChatResult | null = null;
  let firstTokenAt: number | null = null;
  let tokenCount = 0;
  let mode: TurnMode = spec.stream ? 'stream' : 'single';
  let error: ServiceErrorDTO | null = null;

  const single = async (client: ServiceClient) => {
    try {
      result = await client.chat(spec.agentId, { message: spec.message, user_id: spec.userId }, { signal });
      reply = result.reply;
    } catch (err) {
      if (!(err instanceof Aborted)) error = unknownErrorDTO(err);
    }
  };

  try {
    const client = await clientP;
    if (signal.aborted) {
      // stopped before anything was sent
    } else if (!spec.stream) {
      await single(client);
    } else {
      const stream = client.chatStream(spec.agentId, { message: spec.message, user_id: spec.userId }, { signal });
      onStream?.(stream);
      const onAbort = () => stream.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      let streamError: StreamError | null = null;
      try {
        for await (const ev of stream) {
          if (ev.type === 'token') {
            if (firstTokenAt === null) firstTokenAt = clock.now();
            tokenCount++;
            reply += ev.token;
            emit({ type: 'token', turnId: spec.turnId, token: ev.token });
          } else if (ev.type === 'done') {
            result = ev.result;
            if (ev.result.reply !== '') reply = ev.result.reply;
          } else {
            streamError = ev;
          }
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      if (streamError) {
        const dto = streamErrorToDTO(streamError);
        if (tokenCount === 0 && !signal.aborted && fallbackHelps(dto)) {
          mode = 'fallback';
          emit({ type: 'fallback', turnId: spec.turnId, reason: dto });
          await single(client);
        } else {
          error = dto;
        }
      }
    }
  } catch (err) {
    error = unknownErrorDTO(err);
  }

  const endedAt = clock.now();
  const r = result as ChatResult | null;
  const streamedTokens = firstTokenAt !== null;
  const firstTokenMs = streamedTokens ? (firstTokenAt as number) - startedAt : r !== null ? endedAt - startedAt : null;
  const outTokens = r?.usage.outputTokens ?? (tokenCount > 0 ? tokenCount : undefined);
  const genStart = streamedTokens ? (firstTokenAt as number) : startedAt;
  const genMs = endedAt - genStart;
  const tokensPerSec =
    outTokens !== undefined && genMs > 0 && (r !== null || tokenCount > 1)
      ? Math.round((outTokens / (genMs / 1000)) * 10) / 10
      : null;

  return {
    turnId: spec.turnId,
    teamId: spec.teamId,
    agentId: spec.agentId,
    userId: spec.userId,
    message: spec.message,
    reply,
    conversationId: r?.conversationId ?? null,
    actions: r?.actions ?? [],
    usage: r?.usage ?? {},
    mode,
    startedAt,
    endedAt,
    firstTokenMs,
    tokensPerSec,
    tokenCount,
    stopped: signal.aborted,
    error: signal.aborted && error?.kind === 'aborted' ? null : error,
  };
}
