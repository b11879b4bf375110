// Which URL a tunnel program prints is the public one: the first http(s) URL that names a host other
// than this machine's loopback or "any" address and carries no path. Tunnel programs print other
// URLs first (cloudflared a documentation link, ngrok `addr=http://localhost:PORT`, tailscale
// `proxy http://127.0.0.1:PORT`); those have a path or point back at this machine.
import { isLoopbackHost } from '../url';

const URL_RE = /\bhttps?:\/\/(?:\[[0-9A-Fa-f:.]+\])?[^\s"'<>`|[\](){}]*/g;
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * Loopback, unspecified ("any"), or a `*.localhost` name (never public, whatever it resolves to):
 * not a URL anyone else reaches.
 */
function isOwnMachineHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return isLoopbackHost(h) || h === '0.0.0.0' || h === '::' || h.endsWith('.localhost');
}

/** The public base URL on this line of a tunnel program's output (origin only, no trailing slash), or null. */
export function findPublicUrl(line: string): string | null {
  for (const m of line.replace(ANSI_RE, '').matchAll(URL_RE)) {
    const raw = m[0].replace(/[.,;:!?'"]+$/, '');
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      continue;
    }
    if (u.hostname === '' || isOwnMachineHost(u.hostname)) continue;
    if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) continue;
    return u.origin;
  }
  return null;
}
