// The hub-fanout bench's fan-out floor, one relay in a process of its own: the least a pair of replicas can do to get
// every delivery to every listener. Per POST to /hooks/<agent>: check the signature as every receiver of the
// service does (verifyDelivery, the agent's secret), answer 200, and write the delivery (agent, the two signature
// headers, the body) as one server-sent event to each client of GET /events and as one line to the other relay, over
// one plain TCP connection between the two (the first relay listens, the second connects: `peer`; each says `linked`
// once it is); a line from the
// other relay goes to this relay's clients the same way. Nothing else: no database, no duplicate check, no order
// across the relays, no record, no replay for a client that connects late.
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { LEGACY_HEADER, V1_HEADER, verifyDelivery } from '../../../src-main/core/signature';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { secrets, peer } = parseArg(
  z.strictObject({
    secrets: z.record(z.string().min(1), z.string().min(1)),
    /** The other relay's link port; without it this relay listens for the other one. */
    peer: z.number().int().positive().optional(),
  }),
);

const clients = new Set<ServerResponse>();
let link: Socket | null = null;

function toClients(line: string): void {
  const event = `event: delivery\ndata: ${line}\n\n`;
  for (const c of clients) c.write(event);
}

function onLink(socket: Socket): void {
  socket.setNoDelay(true);
  link = socket;
  createInterface({ input: socket }).on('line', toClients);
  socket.on('error', () => undefined);
  emit({ type: 'linked' });
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/events') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(': ready\n\n');
    clients.add(res);
    res.on('close', () => clients.delete(res));
    return;
  }
  const agent = /^\/hooks\/([^/?]+)$/.exec(req.url ?? '')?.[1];
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const secret = agent === undefined ? undefined : secrets[agent];
    const verdict = verifyDelivery({
      headers: req.headers,
      rawBody: body,
      secrets: secret === undefined ? [] : [secret],
      now: Math.floor(Date.now() / 1000),
    });
    if (req.method !== 'POST' || !verdict.ok) {
      res.writeHead(401, { 'content-length': 0 }).end();
      return;
    }
    const data = '{"ok":true}';
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': data.length }).end(data);
    const line = JSON.stringify({
      agent,
      headers: { [V1_HEADER]: req.headers[V1_HEADER], [LEGACY_HEADER]: req.headers[LEGACY_HEADER] },
      body: body.toString('utf8'),
    });
    toClients(line);
    link?.write(`${line}\n`);
  });
});
server.keepAliveTimeout = 30_000;

const tcp = createTcpServer(onLink);
if (peer === undefined) tcp.listen(0, '127.0.0.1', () => listening((tcp.address() as AddressInfo).port));
else {
  const socket = connect(peer, '127.0.0.1', () => {
    onLink(socket);
    listening(null);
  });
}

function listening(linkPort: number | null): void {
  server.listen(0, '127.0.0.1', () =>
    emit({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, linkPort }),
  );
}

exitWithParent(async () => {
  link?.destroy();
  tcp.close();
  server.closeAllConnections();
  server.close();
});
