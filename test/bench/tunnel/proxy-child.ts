// The tunnel bench's baseline, in its own process: http-proxy forwarding every request to the local
// app as it comes (no verifying, no storing), over a keep-alive agent.
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';
import { z } from 'zod';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { target } = parseArg(z.strictObject({ target: z.string().url() }));
const proxy = httpProxy.createProxyServer({ target, agent: new Agent({ keepAlive: true, maxSockets: 64 }) });
proxy.on('error', (_err, _req, res) => {
  if ('writeHead' in res && !res.headersSent) res.writeHead(502).end();
});
const server = createServer((req, res) => proxy.web(req, res));
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () =>
  emit({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
);
exitWithParent(async () => {
  server.closeAllConnections();
  server.close();
  proxy.close();
});
