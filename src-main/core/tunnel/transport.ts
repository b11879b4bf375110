// One POST to the local app. The transport is a port so the forwarder can be tested on a fake clock.
import { Agent, type Dispatcher, request } from 'undici';
import type { Clock } from '../ports';
import { RESPONSE_BODY_LIMIT } from './types';

export interface ForwardRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  signal: AbortSignal;
}

export interface ForwardResponse {
  status: number;
  /** At most the first 4 KiB, utf8. */
  body: string;
}

/** Resolves with the answer; rejects when there is none (refused, reset, aborted). */
export type Transport = (req: ForwardRequest) => Promise<ForwardResponse>;

export interface UndiciTransport {
  transport: Transport;
  close(): Promise<void>;
}

const DRAIN_LIMIT = 1024 * 1024;

export function createUndiciTransport(dispatcher?: Dispatcher): UndiciTransport {
  const own = dispatcher ? null : new Agent({ keepAliveTimeout: 4_000, connections: 16, connect: { timeout: 5_000 } });
  const d = dispatcher ?? own!;
  const transport: Transport = async (req) => {
    const res = await request(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: req.signal, dispatcher: d });
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (kept < RESPONSE_BODY_LIMIT) {
        const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (seen > DRAIN_LIMIT) break;
    }
    return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
  };
  return { transport, close: async () => void (await own?.close().catch(() => undefined)) };
}

export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  latencyMs: number;
  responseBody: string | null;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** POSTs once with a timeout on the injected clock; never throws. */
export async function postOnce(
  transport: Transport,
  clock: Clock,
  req: { url: string; headers: Record<string, string>; body: Buffer; timeoutMs: number; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  const started = clock.now();
  const ac = new AbortController();
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    ac.abort(new Error('timeout'));
  }, req.timeoutMs);
  const onStop = () => ac.abort(new Error('stopped'));
  req.signal?.addEventListener('abort', onStop, { once: true });
  try {
    const res = await transport({ url: req.url, headers: req.headers, body: req.body, signal: ac.signal });
    const ok = res.status >= 200 && res.status <= 299;
    return { status: res.status, error: ok ? null : `HTTP ${res.status}`, latencyMs: clock.now() - started, responseBody: res.body };
  } catch (err) {
    const error = timedOut ? `no answer within ${req.timeoutMs} ms` : describe(err);
    return { status: null, error, latencyMs: clock.now() - started, responseBody: null };
  } finally {
    clock.clearTimeout(timer);
    req.signal?.removeEventListener('abort', onStop);
  }
}
