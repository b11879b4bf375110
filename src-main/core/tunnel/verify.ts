// The tunnel's verdict for one delivery: the signature verdict (src-main/core/signature) first; a
// delivery signed only with the legacy header (no timestamp, so replayable forever) is refused as
// `legacy-only` unless allowed; then a repeat of a delivery already received (`duplicate`).
// A body whose signature verifies is authentic: a UTF-8 byte order mark or a body that is not JSON
// is accepted with a note on the verdict (refusing it would make the service retry it forever).
import { isUtf8 } from 'node:buffer';
import { LEGACY_HEADER, V1_HEADER, verifyDelivery, type HeaderBag } from '../signature';
import { headerOf } from './headers';
import { dedupeKey } from './seen';
import type { DeliverySummary, TunnelVerdict } from './types';

export interface TunnelVerifyInput {
  headers: HeaderBag;
  rawBody: Uint8Array;
  secrets: string[];
  /** seconds since epoch */
  now: number;
  toleranceSec?: number;
  /** Accept a delivery that carries only the legacy signature (default false: `legacy-only`). */
  allowLegacy?: boolean;
  /** Claims the delivery's duplicate key (seen.ts) for the agent; false when it was already claimed. */
  claim?: (key: string) => boolean;
}

export interface TunnelVerifyResult {
  verdict: TunnelVerdict;
  summary: DeliverySummary;
  /** The duplicate key claimed for an accepted delivery, or null. */
  key: string | null;
}

const BOM = [0xef, 0xbb, 0xbf];

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function hasBom(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === BOM[0] && b[1] === BOM[1] && b[2] === BOM[2];
}

/** Parses the body as JSON (after a byte order mark); undefined when it is not JSON. */
function parseJson(rawBody: Uint8Array, bom: boolean): unknown {
  try {
    const start = bom ? 3 : 0;
    return JSON.parse(
      Buffer.from(rawBody.buffer, rawBody.byteOffset + start, rawBody.byteLength - start).toString('utf8'),
    );
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
  const sigHeaders = signatureHeaders(input.headers);
  const sig = verifyDelivery({
    headers: sigHeaders,
    rawBody: input.rawBody,
    secrets: input.secrets,
    now: input.now,
    toleranceSec: input.toleranceSec,
  });
  const bom = hasBom(input.rawBody);
  const parsed = parseJson(input.rawBody, bom);
  const summary = summarize(parsed);
  // verifyDelivery made this verdict (and its steps) for this call only: extended in place.
  const verdict: TunnelVerdict = sig;
  if (!sig.ok) return { verdict, summary, key: null };
  if (sig.reason === 'verified-legacy-only' && input.allowLegacy !== true) {
    verdict.steps.push(
      'a delivery signed only with the legacy header is refused (allow it with --allow-legacy-signature, or the tunnel setting)',
    );
    return { verdict: { ...verdict, ok: false, reason: 'legacy-only' }, summary, key: null };
  }
  if (bom) {
    verdict.steps.push('the body starts with a UTF-8 byte order mark; accepted as received (it is signed)');
    verdict.note = 'utf8-bom';
  }
  if (parsed === undefined) {
    verdict.steps.push('the body is not JSON; accepted and forwarded byte for byte (it is signed)');
    verdict.note = 'not-json';
  } else verdict.steps.push('the body is JSON');
  // A body that is not valid UTF-8 is read with replacement characters: two different ids could read
  // the same, so such a delivery is known by what its signature covers instead.
  const utf8 = isUtf8(input.rawBody);
  if (!utf8) verdict.steps.push('the body is not valid UTF-8; accepted and forwarded byte for byte (it is signed)');
  // ASSUMPTION A-RETRY: a retried delivery carries the same message.id.
  const key = dedupeKey(
    utf8 ? summary.messageId : null,
    sig.scheme === 'v1' ? sig.timestamp : undefined,
    input.rawBody,
  );
  if (input.claim && !input.claim(key)) {
    verdict.steps.push(
      utf8 && summary.messageId !== null
        ? `message ${summary.messageId} was already received for this agent`
        : 'this exact signed delivery was already received for this agent',
    );
    return { verdict: { ...verdict, ok: false, reason: 'duplicate' }, summary, key };
  }
  return { verdict, summary, key };
}
