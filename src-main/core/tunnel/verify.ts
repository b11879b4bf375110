// The tunnel's verdict for one delivery: the signature verdict (src-main/core/signature) first,
// then JSON (`not-json`), then a repeated message.id for the agent (`duplicate`).
import { LEGACY_HEADER, V1_HEADER, verifyDelivery, type HeaderBag } from '../signature';
import { headerOf } from './headers';
import type { DeliverySummary, TunnelVerdict } from './types';

export interface TunnelVerifyInput {
  headers: HeaderBag;
  rawBody: Uint8Array;
  secrets: string[];
  /** seconds since epoch */
  now: number;
  toleranceSec?: number;
  /** True when this message.id was already seen (verified) for the agent. */
  isDuplicate?: (messageId: string) => boolean;
}

export interface TunnelVerifyResult {
  verdict: TunnelVerdict;
  summary: DeliverySummary;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** Parses the body as JSON; undefined when it is not JSON. */
function parseJson(rawBody: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}

// ASSUMPTION A-INBOUND: {event, from, message:{id,type,...}, media?, timestamp}; unknown shapes give nulls.
function summarize(parsed: unknown): DeliverySummary {
  const o = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const m = o.message && typeof o.message === 'object' ? (o.message as Record<string, unknown>) : {};
  return { event: str(o.event), from: str(o.from), messageId: str(m.id), type: str(m.type) };
}

/** Only the two signature headers (the verifier scans every header it is given, per look-up). */
function signatureHeaders(headers: HeaderBag): HeaderBag {
  const bag: HeaderBag = {};
  const v1 = headerOf(headers, V1_HEADER);
  const legacy = headerOf(headers, LEGACY_HEADER);
  if (v1 !== undefined) bag[V1_HEADER] = v1;
  if (legacy !== undefined) bag[LEGACY_HEADER] = legacy;
  return bag;
}

export function verifyTunnelDelivery(input: TunnelVerifyInput): TunnelVerifyResult {
  const sig = verifyDelivery({
    headers: signatureHeaders(input.headers),
    rawBody: input.rawBody,
    secrets: input.secrets,
    now: input.now,
    toleranceSec: input.toleranceSec,
  });
  const parsed = parseJson(input.rawBody);
  const summary = summarize(parsed);
  // verifyDelivery made this verdict (and its steps) for this call only: extended in place.
  const verdict: TunnelVerdict = sig;
  if (!sig.ok) return { verdict, summary };
  if (parsed === undefined) {
    verdict.steps.push('the body is not JSON');
    return { verdict: { ...verdict, ok: false, reason: 'not-json' }, summary };
  }
  verdict.steps.push('the body is JSON');
  // ASSUMPTION A-RETRY: a retried delivery carries the same message.id.
  if (summary.messageId !== null && input.isDuplicate?.(summary.messageId)) {
    verdict.steps.push(`message ${summary.messageId} was already received for this agent`);
    return { verdict: { ...verdict, ok: false, reason: 'duplicate' }, summary };
  }
  return { verdict, summary };
}
