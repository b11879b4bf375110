// Who may talk to the browser host: a loopback Host header (DNS-rebinding defence), a same-origin
// Origin when one is sent, and the per-start token in a header, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export function newToken(bytes: (n: number) => Buffer = randomBytes): string {
  return bytes(32).toString('base64url');
}

function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Splits `name:port` / `[v6]:port`; null when there is no port. */
function splitHost(host: string): { name: string; port: string } | null {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(host);
  return m ? { name: (m[1] ?? m[2] ?? '').toLowerCase(), port: m[3]! } : null;
}

/**
 * Loopback names always. When the person bound the host to another interface on purpose
 * (`serve --host`), also an IP literal on our port: DNS rebinding needs a DNS name, so a literal
 * address in Host cannot be a rebound page (and the token is still required).
 */
export function hostAllowed(req: IncomingMessage, port: number, opts: { allowIpLiterals?: boolean } = {}): boolean {
  const host = req.headers.host;
  if (typeof host !== 'string') return false;
  const lower = host.toLowerCase();
  if (allowedHosts(port).has(lower)) return true;
  if (!opts.allowIpLiterals) return false;
  const parts = splitHost(lower);
  return parts !== null && parts.port === String(port) && isIP(parts.name) !== 0;
}

/** No Origin (same-origin GET, curl) is fine; a present Origin must be exactly this host's. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin === `http://${(req.headers.host ?? '').toLowerCase()}`;
}

export function presentedToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)$/i.exec(auth.trim());
    if (m) return m[1] ?? null;
  }
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
