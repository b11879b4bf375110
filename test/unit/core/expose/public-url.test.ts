import { describe, expect, it } from 'vitest';
import { findPublicUrl } from '../../../../src-main/core/expose/public-url';

describe('findPublicUrl', () => {
  it.each([
    // cloudflared prints a documentation link first, then the quick tunnel in a box.
    [
      '2024-05-01T10:00:00Z INF |  https://violet-sun-1234.trycloudflare.com                                 |',
      'https://violet-sun-1234.trycloudflare.com',
    ],
    // ngrok's log line names the local address before the public one.
    [
      't=2024 lvl=info msg="started tunnel" obj=tunnels addr=http://localhost:8080 url=https://ab12.ngrok-free.app',
      'https://ab12.ngrok-free.app',
    ],
    // tailscale funnel ends its URL with a slash.
    ['https://laptop.tail1234.ts.net/', 'https://laptop.tail1234.ts.net'],
    ['Forwarding HTTP traffic from https://abc.serveo.net.', 'https://abc.serveo.net'],
    ['\u001b[32myour url is: http://192.0.2.2:41234\u001b[0m', 'http://192.0.2.2:41234'],
    ['public: https://[2001:db8::1]:8443', 'https://[2001:db8::1]:8443'],
  ])('finds the public URL in %j', (line, url) => {
    expect(findPublicUrl(line)).toBe(url);
  });

  it.each([
    'read more at https://developers.cloudflare.com/cloudflare-one/connections/connect-apps',
    '|-- proxy http://127.0.0.1:8080',
    'Web Interface http://localhost:4040',
    'listening on http://0.0.0.0:9000 and http://[::1]:9000',
    'see https://example.com/?q=1 or https://user:pw@example.org',
    'no url here at all: example.com:443',
    'ftp://files.example.com',
  ])('finds none in %j', (line) => {
    expect(findPublicUrl(line)).toBeNull();
  });

  it('takes the first public URL of a line', () => {
    expect(findPublicUrl('http://127.0.0.1:1 https://one.example https://two.example')).toBe('https://one.example');
  });
});

describe('a URL of this machine is never the public one', () => {
  // Hosts as a URL writes them (IPv6 in brackets), each printed alone on a line with a port.
  it.each([
    'localhost',
    'app.localhost',
    'APP.LOCALHOST',
    '127.0.0.1',
    '127.8.9.1',
    '0.0.0.0',
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]',
  ])('%s is this machine', (h) => {
    expect(findPublicUrl(`https://${h}:8443`)).toBeNull();
  });
  it.each(['192.168.1.4', '10.0.0.1', 'example.com', '[2001:db8::1]', 'localhost.example.com'])('%s is not', (h) => {
    expect(findPublicUrl(`https://${h}:8443`)).toBe(`https://${h.toLowerCase()}:8443`);
  });
});
