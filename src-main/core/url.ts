// http(s) URLs: the one rule for every URL the app, the CLI and core accept from outside (service base
// URLs, webhook and forward targets, media links). Messages name the problem, never the URL itself
// (a URL may carry a token in its path or query). The plain rules every runtime shares (isHttpUrl,
// isLoopbackHost, redactCredentials, insecureKeyProblem) live in src-shared/url and are re-exported here.
import { isIP } from 'node:net';
import { z } from 'zod';
import { insecureKeyProblem, isHttpUrl, isLoopbackHost, redactCredentials } from '../../src-shared/url';

export { insecureKeyProblem, isHttpUrl, isLoopbackHost, redactCredentials };

const MAX_URL_LENGTH = 2048;

export interface HttpUrlRules {
  /** Refuse a user or password in the URL (they would end up in config files and logs). */
  noCredentials?: boolean;
  /** Refuse a query or fragment (a base URL that paths are appended to). */
  noQuery?: boolean;
}

/** A path segment this long looks like a token. */
const TOKEN_SEGMENT_MIN = 16;

/**
 * A URL safe to show or keep: a user and password become `***`; every query value, a query name
 * that looks like a token, a part without a name and the fragment become `…`; path segments that
 * look like tokens (16 characters or more) become `…`, except those in `keep` (as they appear in
 * the URL's path, such as an agent id in a hook URL). `https://u:p@h/in/0123456789abcdef?token=S`
 * → `https://***@h/in/…?token=…`. Text that is no URL is shown as `…`.
 */
export function redactUrl(url: string, keep: readonly string[] = []): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '…';
  }
  const userinfo = u.username !== '' || u.password !== '' ? '***@' : '';
  const token = (s: string) => s.length >= TOKEN_SEGMENT_MIN && !keep.includes(s);
  // A `…` the parser percent-encoded (a URL redacted before) stays `…`: redacting twice changes nothing.
  const ellipsis = (s: string) => /^%E2%80%A6$/i.test(s);
  const pathname = u.pathname
    .split('/')
    .map((s) => (ellipsis(s) || token(s) ? '…' : s))
    .join('/');
  const query =
    u.search === ''
      ? ''
      : `?${u.search
          .slice(1)
          .split('&')
          .map((p) => {
            const eq = p.indexOf('=');
            // A part without a name (`?SECRET`) is all value.
            if (eq <= 0) return p === '' ? '' : '…';
            const name = p.slice(0, eq);
            return `${ellipsis(name) || token(name) ? '…' : name}=…`;
          })
          .join('&')}`;
  return `${u.protocol}//${userinfo}${u.host}${pathname}${query}${u.hash !== '' ? '#…' : ''}`;
}

/** Whether a URL was kept redacted (redactUrl's `…`, or redactCredentials' `***@`): it cannot be used as it is. */
export function isRedactedUrl(url: string): boolean {
  return url.includes('…') || /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*\*\*\*@/.test(url);
}

/**
 * What is wrong with `s` as an http(s) URL under `rules`, as a phrase that follows the field's name
 * ("imageUrl must be an http(s) URL, not ftp:"); null when it is fine.
 */
export function httpUrlProblem(s: string, rules: HttpUrlRules = {}): string | null {
  if (s.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'is not a valid URL (expected an absolute http(s) URL such as https://example.com/path)';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `must be an http(s) URL, not ${u.protocol}`;
  if (u.hostname === '') return 'must name a host';
  if (rules.noCredentials && (u.username || u.password)) return 'must not contain a user or password';
  if (rules.noQuery && (u.search || u.hash)) return 'must not have a query or fragment';
  return null;
}

/** A trimmed absolute http(s) URL; `rules` add what some fields refuse. */
function httpUrl(rules: HttpUrlRules = {}) {
  return z
    .string()
    .trim()
    .superRefine((s, ctx) => {
      const problem = httpUrlProblem(s, rules);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/** Any absolute http(s) URL (forward targets, media links, webhook URLs sent to the service). */
export const httpUrlSchema = httpUrl();

/** An http(s) URL without a user or password: for URLs that are stored (settings, preferences). */
export const storedUrlSchema = httpUrl({ noCredentials: true });

/** `https://host/base/` → `https://host/base`: what paths are appended to. */
export function normalizeBaseUrl(s: string): string {
  const u = new URL(s);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** A service base URL: http(s), no credentials, query or fragment; normalised without a trailing slash. */
export const baseUrlSchema = httpUrl({ noCredentials: true, noQuery: true }).transform(normalizeBaseUrl);

/** Splits `name:port` / `[v6]:port` (lower-cased); null when there is no port. */
function splitHostHeader(host: string): { name: string; port: string } | null {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(host.toLowerCase());
  return m ? { name: m[1] ?? m[2] ?? '', port: m[3]! } : null;
}

/**
 * Whether a Host header names a server of this machine on `port` (the DNS-rebinding defence of
 * every local HTTP server a browser could be pointed at): `localhost` or a loopback address
 * always. With `allowIpLiterals` (the server was bound to another interface on purpose) also any
 * IP address on that port: DNS rebinding needs a DNS name, so a literal address in Host cannot be
 * a rebound page.
 */
export function hostHeaderAllowed(
  host: string | undefined,
  port: number,
  opts: { allowIpLiterals?: boolean } = {},
): boolean {
  if (typeof host !== 'string') return false;
  const parts = splitHostHeader(host);
  if (parts === null || parts.port !== String(port)) return false;
  if (isLoopbackHost(parts.name)) return true;
  return opts.allowIpLiterals === true && isIP(parts.name) !== 0;
}
