// The fake tunnel program (fake-tunnel-bin.mjs) as an exposure command: `node …/fake-tunnel-bin.mjs --to
// {port} --host <this machine's network address>`. A tunnel's URL is never loopback, so the fake
// needs a non-loopback address; where the machine has none, tests that need it skip with that
// reason outside CI (and fail in CI).
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';

export const FAKE_TUNNEL = fileURLToPath(new URL('./fake-tunnel-bin.mjs', import.meta.url));

/** The first non-internal IPv4 address of this machine, or null. */
export function networkAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

export const NO_NETWORK_ADDRESS =
  networkAddress() === null ? 'this machine has no non-loopback IPv4 address for the fake tunnel to listen on' : null;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The exposure command that runs the fake tunnel (POSIX shell quoting). */
export function fakeTunnelCommand(extra: string[] = []): string {
  return [
    quote(process.execPath),
    quote(FAKE_TUNNEL),
    '--to',
    '{port}',
    '--host',
    networkAddress() ?? '127.0.0.1',
    ...extra,
  ].join(' ');
}
