// The Host check (DNS-rebinding defence): loopback names always; IP literals only when the person
// bound the host to another interface on purpose; DNS names other than localhost never. The same
// check guards the browser host and /metrics.
import { describe, expect, it } from 'vitest';
import { hostHeaderAllowed } from '../../../src-main/core/url';

const req = (host: string | undefined) => host;
const hostAllowed = hostHeaderAllowed;

describe('hostHeaderAllowed', () => {
  it.each(['127.0.0.1:4000', 'localhost:4000', 'LOCALHOST:4000', '[::1]:4000'])('accepts loopback %s', (h) => {
    expect(hostAllowed(req(h), 4000)).toBe(true);
  });
  it.each(['127.0.0.1:4001', 'evil.example:4000', '192.168.1.20:4000', 'app.localhost:4000', 'localhost', ''])(
    'rejects %j on a loopback-bound host',
    (h) => {
      expect(hostAllowed(req(h), 4000)).toBe(false);
    },
  );
  it('rejects a request without a Host header', () => {
    expect(hostAllowed(req(undefined), 4000)).toBe(false);
  });
  it('accepts IP literals on our port when bound beyond loopback, never DNS names', () => {
    const opts = { allowIpLiterals: true };
    expect(hostAllowed(req('192.168.1.20:4000'), 4000, opts)).toBe(true);
    expect(hostAllowed(req('[fe80::1]:4000'), 4000, opts)).toBe(true);
    expect(hostAllowed(req('192.168.1.20:4001'), 4000, opts)).toBe(false);
    expect(hostAllowed(req('rebind.attacker.example:4000'), 4000, opts)).toBe(false);
    expect(hostAllowed(req('192.168.1.20'), 4000, opts)).toBe(false);
  });
});
