// A loopback HTTP server that records every request exactly as received (raw body bytes + headers)
// and answers 200 — a stand-in for a webhook receiver.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Header lines as sent: [name, value] pairs in order. */
  rawHeaders: Array<[string, string]>;
  body: Buffer;
}

export interface HttpSink {
  url: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

export async function startHttpSink(status = 200): Promise<HttpSink> {
  const requests: CapturedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawHeaders: Array<[string, string]> = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
        rawHeaders.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders,
        body: Buffer.concat(chunks),
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
