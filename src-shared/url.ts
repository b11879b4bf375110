// URL and host rules every runtime shares (main process, renderer, emulator): which URLs are
// http(s), which hosts are this machine, a URL with its user and password hidden, and whether an API
// key would cross plain http. Plain functions over the WHATWG URL parser, no Node built-ins.

/** Whether `value` (text or a parsed URL) is an absolute http: or https: URL with a host. */
export function isHttpUrl(value: string | URL): boolean {
  let u: URL;
  try {
    u = typeof value === 'string' ? new URL(value) : value;
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}

const LOOPBACK_V4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isLoopbackV4(h: string): boolean {
  const m = LOOPBACK_V4.exec(h);
  return m !== null && m.slice(1).every((n) => Number(n) <= 255);
}

/**
 * Whether a host (a URL's host name, IPv6 with or without brackets, or a socket's remote address)
 * is this machine without asking any resolver: `localhost`, 127.0.0.0/8, ::1 (also as an
 * IPv4-mapped ::ffff:127.x address). A `*.localhost` name is not: nothing pins it to 127.0.0.1,
 * so a resolver may send it anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (h === 'localhost' || isLoopbackV4(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // IPv4-mapped: ::ffff:127.0.0.1, which URL parsing writes as ::ffff:7f00:1.
  const mapped = /^(?:::|0:0:0:0:0:)ffff:(.+)$/.exec(h)?.[1];
  return mapped !== undefined && (isLoopbackV4(mapped) || /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(mapped));
}

/** A scheme, its slashes (or backslashes), then everything up to the last `@` before the path: the user and password. */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:[/\\]*)[^/\\?#]*@/;

/**
 * The URL with its user and password replaced by `***` (`http://***@host/path`), for every place a
 * URL is shown or kept while the request itself still carries them. Text without them is returned
 * as it is, byte for byte.
 */
export function redactCredentials(url: string): string {
  return url.replace(USERINFO, '$1***@');
}

/**
 * Why an API key must not go to `baseUrl` (plain http:// to a host that is not this machine, where
 * anyone on the way can read it), or null when it may. `allowInsecureHttp` is the person's explicit
 * choice to send it anyway.
 */
export function insecureKeyProblem(baseUrl: string, allowInsecureHttp = false): string | null {
  if (allowInsecureHttp) return null;
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' || isLoopbackHost(u.hostname)) return null;
  return `The API key would travel unencrypted to ${u.host} (plain http:// to a host other than this machine), where anyone on the way can read it. Use an https:// base URL, or allow plain HTTP for this team explicitly`;
}
