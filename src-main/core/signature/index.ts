// Webhook signatures (docs/service-api.md §5):
//   x-service-signature:    sha256=<hex of HMAC-SHA256(secret, raw body)>
//   x-service-signature-v1: t=<unix>,v1=<hex>   hash over `<t>.<raw body>`
// ASSUMPTION A-V1-SIG: the v1 hash is HMAC-SHA256 keyed with the same secret (docs/service-api.md
// §5.2 names only what it covers). Several v1= entries may appear (secret rotation); any match is
// accepted.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureReason } from '../../../src-shared/vocabulary';

export const LEGACY_HEADER = 'x-service-signature';
export const V1_HEADER = 'x-service-signature-v1';
export const DEFAULT_TOLERANCE_SEC = 300;

export interface SignatureVerdict {
  ok: boolean;
  reason: SignatureReason;
  /** Which header decided the verdict. */
  scheme: 'v1' | 'legacy' | 'none';
  /** The v1 timestamp when one was parsed. */
  timestamp?: number;
  /** Human-readable steps, shown in the inspector and by `verify`. */
  steps: string[];
}

export type HeaderBag = Record<string, string | string[] | undefined>;

function toBuffer(body: Uint8Array | string): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function hmacHex(secret: string, data: Buffer): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

/** `sha256=<hex>` over the raw body. */
function signLegacy(secret: string, body: Uint8Array | string): string {
  return `sha256=${hmacHex(secret, toBuffer(body))}`;
}

/** `t=<unix>,v1=<hex>` over `<t>.<raw body>`. */
function signV1(secret: string, body: Uint8Array | string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const payload = Buffer.concat([Buffer.from(`${t}.`, 'utf8'), toBuffer(body)]);
  return `t=${t},v1=${hmacHex(secret, payload)}`;
}

/** Both headers, as the service sends them. */
export function signDelivery(secret: string, body: Uint8Array | string, unixSeconds: number): Record<string, string> {
  return { [LEGACY_HEADER]: signLegacy(secret, body), [V1_HEADER]: signV1(secret, body, unixSeconds) };
}

/** Lengths first (timingSafeEqual throws on unequal lengths), then constant time. */
function safeEqualHex(expectedHex: string, givenHex: string): boolean {
  const a = Buffer.from(expectedHex, 'utf8');
  const b = Buffer.from(givenHex, 'utf8');
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const want = name.toLowerCase();
  // Received headers have lower-case names: the direct look-up almost always answers.
  const direct = Object.prototype.hasOwnProperty.call(headers, want) ? headers[want] : undefined;
  if (direct !== undefined) return Array.isArray(direct) ? direct.join(',') : direct;
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined || k.toLowerCase() !== want) continue;
    return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

const HEX = /^[0-9a-fA-F]+$/;

interface ParsedV1 {
  t: number;
  signatures: string[];
}

/** Parses `t=<unix>,v1=<hex>[,v1=<hex>...]`; unknown keys are ignored. Null when malformed (no t, two different t's, no v1). */
function parseV1Header(value: string): ParsedV1 | null {
  let t: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) return null;
    const key = trimmed.slice(0, eq).trim();
    const val = trimmed.slice(eq + 1).trim();
    if (key === 't') {
      // The same header twice (joined with a comma on the way) repeats its t: a different one is malformed.
      if (!/^\d{1,12}$/.test(val) || (t !== undefined && t !== Number(val))) return null;
      t = Number(val);
    } else if (key === 'v1') {
      if (!HEX.test(val)) return null;
      signatures.push(val.toLowerCase());
    }
  }
  if (t === undefined || signatures.length === 0) return null;
  return { t, signatures };
}

export interface VerifyOptions {
  headers: HeaderBag;
  rawBody: Uint8Array | string;
  /** Current and previous secrets (rotation). Empty → no-secret. */
  secrets: string[];
  /** Seconds since epoch. */
  now: number;
  toleranceSec?: number;
}

/**
 * Verifies one delivery exactly as received. v1 is preferred; when only the legacy header is
 * present and matches, the verdict is `verified-legacy-only` (valid, but replayable).
 */
export function verifyDelivery(opts: VerifyOptions): SignatureVerdict {
  const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const body = toBuffer(opts.rawBody);
  const steps: string[] = [];
  const secrets = opts.secrets.filter((s) => s.length > 0);
  const v1Raw = headerValue(opts.headers, V1_HEADER);
  const legacyRaw = headerValue(opts.headers, LEGACY_HEADER);
  const hasV1 = v1Raw !== undefined && v1Raw.trim() !== '';
  const hasLegacy = legacyRaw !== undefined && legacyRaw.trim() !== '';

  if (!hasV1 && !hasLegacy) {
    steps.push(`neither ${V1_HEADER} nor ${LEGACY_HEADER} is present`);
    return { ok: false, reason: 'missing-signature', scheme: 'none', steps };
  }
  if (secrets.length === 0) {
    steps.push('no signing secret is configured for this agent');
    return { ok: false, reason: 'no-secret', scheme: hasV1 ? 'v1' : 'legacy', steps };
  }

  if (hasV1) {
    const parsed = parseV1Header(v1Raw!);
    if (!parsed) {
      steps.push(`${V1_HEADER} is malformed (expected t=<unix>,v1=<hex>)`);
      return { ok: false, reason: 'malformed-header', scheme: 'v1', steps };
    }
    steps.push(`${V1_HEADER}: t=${parsed.t}, ${parsed.signatures.length} v1 signature(s)`);
    // The digests compared as bytes (a hex signature of any other length never matches).
    const prefix = Buffer.from(`${parsed.t}.`, 'utf8');
    const expected = secrets.map((s) => createHmac('sha256', s).update(prefix).update(body).digest());
    const matched = parsed.signatures.some((given) => {
      if (given.length !== 64) return false;
      const g = Buffer.from(given, 'hex');
      return expected.some((exp) => timingSafeEqual(exp, g));
    });
    if (!matched) {
      const lengths = parsed.signatures.every((g) => g.length !== 64);
      steps.push(
        lengths
          ? 'no v1 signature has the length of a SHA-256 hex digest'
          : 'no v1 signature matches HMAC-SHA256 over `<t>.<raw body>`',
      );
      return { ok: false, reason: 'signature-mismatch', scheme: 'v1', timestamp: parsed.t, steps };
    }
    steps.push('a v1 signature matches');
    const age = opts.now - parsed.t;
    if (age > tolerance) {
      steps.push(`timestamp is ${age} s old; tolerance is ${tolerance} s`);
      return { ok: false, reason: 'stale-timestamp', scheme: 'v1', timestamp: parsed.t, steps };
    }
    if (-age > tolerance) {
      steps.push(`timestamp is ${-age} s in the future; tolerance is ${tolerance} s`);
      return { ok: false, reason: 'future-timestamp', scheme: 'v1', timestamp: parsed.t, steps };
    }
    steps.push(`timestamp within ${tolerance} s`);
    return { ok: true, reason: 'verified', scheme: 'v1', timestamp: parsed.t, steps };
  }

  const legacy = legacyRaw!.trim();
  const m = /^sha256=([0-9a-fA-F]+)$/.exec(legacy);
  if (!m) {
    steps.push(`${LEGACY_HEADER} is malformed (expected sha256=<hex>)`);
    return { ok: false, reason: 'malformed-header', scheme: 'legacy', steps };
  }
  const given = m[1]!.toLowerCase();
  const ok = secrets.some((s) => safeEqualHex(hmacHex(s, body), given));
  if (!ok) {
    steps.push('sha256 signature does not match HMAC-SHA256 over the raw body');
    return { ok: false, reason: 'signature-mismatch', scheme: 'legacy', steps };
  }
  steps.push(`only ${LEGACY_HEADER} is present and it matches; it carries no timestamp, so it can be replayed`);
  return { ok: true, reason: 'verified-legacy-only', scheme: 'legacy', steps };
}
