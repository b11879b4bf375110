// A proxy in its own process (so a bench's client shares no event loop with it): http-proxy forwarding every
// request as it comes to the next of its targets in turn (round robin; one target: all to it), over a keep-alive
// agent, nothing verified, stored or recorded. The tunnel bench's baseline (one target, the local app) and the
// hub-ingest bench's balancer (the replicas). The agent drops an idle connection before the target's server would
// (its Keep-Alive hint, less a second), so no request is sent down a connection the target is closing.
import { Agent, createServer } from 'node:http';
import httpProxy from 'http-proxy';
import { z } from 'zod';
import { parseArg } from '../monitor/child-common';
import { serveOnLoopback } from './child-server';

const { targets } = parseArg(z.strictObject({ targets: z.array(z.string().url()).min(1) }));
// `timeout` (longer than any request here) makes the agent honour the server's Keep-Alive hint for idle sockets.
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 120_000 });
const proxy = httpProxy.createProxyServer({ agent });
proxy.on('error', (_err, _req, res) => {
  if ('writeHead' in res && !res.headersSent) res.writeHead(502).end();
});
let next = 0;
const server = createServer((req, res) => proxy.web(req, res, { target: targets[next++ % targets.length] }));
serveOnLoopback(server, () => {
  proxy.close();
  agent.destroy();
});
