import { MockAgent } from 'undici';
import { createServiceClient } from '../../../../src-main/core/api/client';
import type { ServiceClientOptions } from '../../../../src-main/core/api/service';
import { FakeClock } from '../../../helpers/fake-clock';

const ORIGIN = 'https://svc.test';
export const KEY = 'sk-test-SECRET-9f2c';

export interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function lowerHeaders(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (typeof (h as Headers).forEach === 'function' && !Array.isArray(h)) {
    (h as Headers).forEach((v, k) => (out[k.toLowerCase()] = v));
    return out;
  }
  if (Array.isArray(h)) {
    for (let i = 0; i < h.length; i += 2) out[String(h[i]).toLowerCase()] = String(h[i + 1]);
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  return out;
}

export function setup(extra: Partial<ServiceClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const clock = new FakeClock();
  const client = createServiceClient({
    baseUrl: `${ORIGIN}/`,
    apiKey: KEY,
    dispatcher: agent,
    clock,
    random: () => 0.5,
    contactPathForms: new Map(),
    ...extra,
  });
  const captured: Captured[] = [];
  /** Intercepts method+path, records the request, answers status/body/headers. */
  function answer(method: string, path: string, status: number, body?: unknown, headers: Record<string, string> = {}) {
    return pool.intercept({ method, path }).reply((opts) => {
      captured.push({
        method: opts.method,
        path: opts.path,
        headers: lowerHeaders(opts.headers),
        body:
          typeof opts.body === 'string'
            ? opts.body
            : opts.body === undefined || opts.body === null
              ? undefined
              : String(opts.body),
      });
      const data = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const h = typeof body === 'object' ? { 'content-type': 'application/json', ...headers } : headers;
      return { statusCode: status, data, responseOptions: { headers: h } };
    });
  }
  return { agent, pool, clock, client, captured, answer };
}
