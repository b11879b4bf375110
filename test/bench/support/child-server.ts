// What the benches' child processes that serve HTTP share: their server on a free loopback port, the ready line
// ({ type: 'ready', url }) on stdout, closed when the parent goes (serveOnLoopback); and the floors' server
// (tunnel/floor-child.ts, hub-ingest/commit-floor-child.ts: serveFloor), which reads each request's body, refuses
// (401) one whose v1 signature (HMAC-SHA256 over `<t>.<body>`) does not check with the secret, and hands every other
// to the floor.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { emit, exitWithParent } from '../monitor/child-common';

/**
 * A bench child's HTTP server on a free loopback port (keep-alive 30 s), its ready line ({ type: 'ready', url }) on
 * stdout once it listens; when the parent goes, its connections and it are closed, then `close` runs.
 */
export function serveOnLoopback(server: Server, close: () => Promise<void> | void = () => undefined): void {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () =>
    emit({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
  );
  exitWithParent(async () => {
    server.closeAllConnections();
    server.close();
    await close();
  });
}

const V1 = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

/** Serves the floor: `onDelivery` gets each signed delivery (its body, its v1 header); `close` runs at the end. */
export function serveFloor(
  secret: string,
  onDelivery: (req: IncomingMessage, res: ServerResponse, body: Buffer, v1: string) => void,
  close: () => Promise<void> | void,
): void {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const v1 = req.headers['x-service-signature-v1'];
      const m = typeof v1 === 'string' ? V1.exec(v1) : null;
      if (
        !m ||
        !timingSafeEqual(
          createHmac('sha256', secret).update(`${m[1]}.`).update(body).digest(),
          Buffer.from(m[2]!, 'hex'),
        )
      ) {
        res.writeHead(401, { 'content-length': 0 }).end();
        return;
      }
      onDelivery(req, res, body, v1 as string);
    });
  });
  serveOnLoopback(server, close);
}
