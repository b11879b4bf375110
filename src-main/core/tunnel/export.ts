// A stored delivery as a `curl` command (bytes exact, every header it arrived with but credentials)
// or as a JSON test fixture. One implementation for the app's "Copy as curl" and the CLI's
// `deliveries export`. Credential headers (Authorization, Cookie, …; stored redacted) are withheld,
// and the command's first line says which.
import { isCredentialHeader, redactHeaders, tunnelHeaders } from './headers';
import type { DeliveryDetail, TunnelVerdict } from './types';

/** POSIX single quotes: everything literal; a quote becomes '\''. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * bash/zsh ANSI-C quoting of arbitrary bytes: printable ASCII stays readable, everything else is
 * \xHH. Returns null when the bytes hold NUL, which $'…' cannot carry.
 */
function ansiCQuote(bytes: Uint8Array): string | null {
  let out = "$'";
  for (const b of bytes) {
    if (b === 0) return null;
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x27) out += "\\'";
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x09) out += '\\t';
    else if (b === 0x0d) out += '\\r';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

/** A POSIX printf format that prints exactly these bytes (NUL included): octal escapes. */
function printfFormat(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x25) out += '%%';
    else if (b === 0x27 || b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `'${out}'`;
}

/** Where a curl command posts when no forward address is known: visible, to be replaced. */
const FORWARD_URL_PLACEHOLDER = '<FORWARD_URL>';

/**
 * Headers that belong to one connection, or that curl sets from what it sends, and so are not
 * repeated: the rest of what the delivery arrived with is (the service's delivery id included).
 */
const NOT_REPEATED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);

/**
 * Every header the delivery arrived with, but those of its connection (NOT_REPEATED) and credentials
 * (`withheld`, by name); several values joined by ", ".
 */
function receivedHeaders(headers: DeliveryDetail['headers']): { out: Record<string, string>; withheld: string[] } {
  const out: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (NOT_REPEATED.has(name)) continue;
    if (isCredentialHeader(name)) withheld.push(name);
    else out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return { out, withheld };
}

export interface CurlOptions {
  /** Where to send it (the local app's forward address); FORWARD_URL_PLACEHOLDER when not given. */
  url?: string;
  /** Add the tunnel's own headers (default true). */
  tunnelHeaders?: boolean;
  tunnelName?: string;
}

/**
 * The delivery as received (every header it arrived with but those of its connection and credentials,
 * exact bytes), with the tunnel's own headers after them (our delivery id second to the service's own).
 * Body: `--data-binary $'…'` (bash, zsh); when the body holds NUL bytes, `printf … | curl --data-binary @-` (any sh).
 * Withheld credential headers are named on a `#` comment line before the command.
 */
export function toCurl(d: DeliveryDetail, opts: CurlOptions = {}): string {
  const body = Buffer.from(d.bodyBase64, 'base64');
  const url = opts.url ?? FORWARD_URL_PLACEHOLDER;
  const received = receivedHeaders(d.headers);
  const note =
    received.withheld.length > 0
      ? `# withheld (credentials, stored redacted): ${received.withheld.map((n) => n.replace(/[^\x21-\x7e]/g, '?')).join(', ')}\n`
      : '';
  const headers = {
    ...received.out,
    ...(opts.tunnelHeaders === false ? {} : tunnelHeaders(opts.tunnelName ?? 'channel-companion-tunnel', d.id)),
  };
  const headerArgs = Object.entries(headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)}`);
  const ansi = ansiCQuote(body);
  const head = ['curl -sS -X POST', ...headerArgs];
  if (ansi !== null) return note + [...head, `  --data-binary ${ansi}`, `  ${shellQuote(url)}`].join(' \\\n');
  return note + [`printf ${printfFormat(body)} |`, ...head, '  --data-binary @-', `  ${shellQuote(url)}`].join(' \\\n');
}

export interface DeliveryFixture {
  id: string;
  agentId: string;
  receivedAt: string;
  headers: Record<string, string | string[]>;
  /** The raw body as text (utf8; exact only when the bytes are valid utf8 — use bodyBase64 otherwise). */
  body: string;
  bodyBase64: string;
  verdict: TunnelVerdict;
}

export function toFixture(d: DeliveryDetail): DeliveryFixture {
  const body = Buffer.from(d.bodyBase64, 'base64');
  return {
    id: d.id,
    agentId: d.agentId,
    receivedAt: new Date(d.receivedAt).toISOString(),
    // Redacted again: a delivery stored before credentials were redacted keeps none in a fixture.
    headers: redactHeaders(d.headers),
    body: body.toString('utf8'),
    bodyBase64: d.bodyBase64,
    verdict: d.verdict,
  };
}
