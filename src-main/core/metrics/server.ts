// The /metrics endpoint: a plain HTTP server for Prometheus to scrape, on loopback unless a host is
// given on purpose. GET (or HEAD) /metrics answers the exposition text; anything else 404/405. The
// Host header must name this machine (or, when bound elsewhere on purpose, an IP address), as for
// the browser host: a page on a rebound DNS name cannot read the agents' health.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderAllowed, isLoopbackHost } from '../url';
import type { CompanionMetrics } from './metrics';

export interface MetricsServer {
  /** http://host:port/metrics */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /** 0: any free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  onError?(err: unknown): void;
}

export async function startMetricsServer(
  metrics: Pick<CompanionMetrics, 'metrics' | 'contentType'>,
  opts: MetricsServerOptions,
): Promise<MetricsServer> {
  const host = opts.host ?? '127.0.0.1';
  const allowIpLiterals = !isLoopbackHost(host);
  let port = 0;
  const server: Server = createServer((req, res) => {
    if (!hostHeaderAllowed(req.headers.host, port, { allowIpLiterals })) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('Forbidden: unexpected Host header\n');
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    metrics.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        opts.onError?.(err);
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('The metrics could not be collected.\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000; // longer than Prometheus' idle connection, so scrapes reuse it
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
