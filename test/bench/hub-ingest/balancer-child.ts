// The hub-ingest bench's load balancer, in its own process (so the bench's client does not share an event loop
// with it): HTTP in front of the replicas, each request sent to the next one in turn (round robin), keep-alive
// both ways, nothing recorded. A kept-alive connection a replica closed just as it was reused is tried once more
// on a new one, as a proxy does.
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { backends } = parseArg(z.strictObject({ backends: z.array(z.string().url()).min(1) }));
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let next = 0;

function forward(req: IncomingMessage, body: Buffer, res: ServerResponse, retried: boolean): void {
  const to = new URL(req.url ?? '/', backends[next++ % backends.length]);
  const up = request(to, { method: req.method, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => {
    if (up.reusedSocket && !retried && !res.headersSent) forward(req, body, res, true);
    else res.destroy();
  });
  up.end(body);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => forward(req, Buffer.concat(chunks), res, false));
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () =>
  emit({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
);
exitWithParent(async () => {
  server.closeAllConnections();
  server.close();
  agent.destroy();
});
