#!/usr/bin/env node
// A stand-in for a tunnel program (cloudflared, `tailscale funnel`, ssh -R …) for the exposure
// tests: listens on this machine's network address (not loopback: a tunnel's URL is not), forwards
// every request to 127.0.0.1:<--to> byte for byte, and prints its URL after a little noise of the
// kind real tunnel programs print first (a link with a path, the loopback address it forwards to).
//
//   node fake-tunnel-bin.mjs --to PORT --host ADDR [--stderr] [--exit-after MS]
//
// --host: the address to listen on (fake-tunnel.ts picks this machine's network address);
// --stderr: print on stderr instead of stdout; --exit-after: exit with code 3 that long after
// printing the URL.
import { createServer, request } from 'node:http';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const to = Number(opt('--to'));
if (!Number.isInteger(to) || to <= 0) {
  process.stderr.write('fake-tunnel: --to PORT is required\n');
  process.exit(2);
}

const host = opt('--host');
if (!host) {
  process.stderr.write('fake-tunnel: --host ADDR is required\n');
  process.exit(2);
}
const say = (line) => (args.includes('--stderr') ? process.stderr : process.stdout).write(`${line}\n`);

const server = createServer((req, res) => {
  const up = request(
    { host: '127.0.0.1', port: to, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('fake-tunnel: the local receiver did not answer');
  });
  req.pipe(up);
});
server.listen(0, host, () => {
  const { port } = server.address();
  say('fake-tunnel: starting; read the docs at https://fake-tunnel.example/docs/getting-started');
  say(`fake-tunnel: forwarding to http://127.0.0.1:${to}`);
  say(`fake-tunnel: your url is: http://${host}:${port}`);
  const after = Number(opt('--exit-after'));
  if (after > 0) setTimeout(() => process.exit(3), after);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
