// A local webhook receiver for delivery tests.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startReceiver() {
  const received: Received[] = [];
  let answer: (n: number, res: ServerResponse) => void = (_n, res) => res.writeHead(200).end('ok');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: req.headers, raw, json: JSON.parse(raw.toString('utf8')) });
      answer(received.length, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    onRequest(fn: (n: number, res: ServerResponse) => void) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
