// Who may talk to the browser host: a loopback Host header (core/url hostHeaderAllowed), a same-origin
// Origin when one is sent, and the access token in a header, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../app/contract-http';

export function newToken(bytes: (n: number) => Buffer = randomBytes): string {
  return bytes(32).toString('base64url');
}

/** An access token: long and URL-safe, like the ones newToken makes (or one the person gives). */
export function isHostToken(s: string): boolean {
  return /^[A-Za-z0-9_-]{32,512}$/.test(s);
}

/** No Origin (same-origin GET, curl) is fine; a present Origin must be exactly this host's. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin === `http://${(req.headers.host ?? '').toLowerCase()}`;
}

export function presentedToken(req: IncomingMessage): string | null {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer !== null) return bearer;
  const x = req.headers['x-cc-token'];
  return typeof x === 'string' && x.length > 0 ? x : null;
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(presented: string | null, expected: string): boolean {
  if (presented === null) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && presented.length === expected.length;
}
