// A tiny load balancer for tests: HTTP in front of several hub replicas, each new request sent to the next
// backend in turn (round robin); a backend that refuses the connection is skipped and the request tried on
// the next one (as a proxy's health check would), so a killed replica's share moves to the others. Bodies
// and answers are streamed both ways (an event stream stays open through it); a stream whose replica dies
// is cut, as a real proxy cuts it. Every answer is recorded (backend, path, status, and its body's text), so a
// test can count where requests went and read everything the members were told.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BalancedAnswer {
  backend: string;
  method: string;
  path: string;
  status: number;
  /** The answer's body as text, growing while it streams. */
  body: string;
}

export interface TestBalancer {
  origin: string;
  /** Requests each backend answered (by origin). */
  counts: Map<string, number>;
  /** Every answer passed on, in the order their heads arrived. */
  answers: BalancedAnswer[];
  /** Why a backend could not be reached or answer (each try). */
  errors: string[];
  /** Puts another backend into the rotation (a replica started later). */
  add(backend: string): void;
  /** Takes a backend out, as if it died: no new request goes to it, and the answers it is streaming are cut. */
  kill(backend: string): void;
  /** The backends of the answers still streaming (an event stream's replica). */
  servedBy(): string[];
  close(): Promise<void>;
}

export async function startBalancer(initial: string[]): Promise<TestBalancer> {
  const backends = [...initial];
  let next = 0;
  const counts = new Map(backends.map((b) => [b, 0]));
  const answers: BalancedAnswer[] = [];
  const errors: string[] = [];
  /** Answers still streaming, with the backend of each. */
  const open = new Map<IncomingMessage, string>();

  /** Tries the backends in turn from `first` (each once) until one answers. */
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, first: number, tried: number): void => {
    if (tried >= backends.length) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no replica answered');
      return;
    }
    const backend = backends[(first + tried) % backends.length]!;
    const target = new URL(req.url ?? '/', backend);
    // A connection of its own per request (no keep-alive pool: a pooled socket the replica closed meanwhile
    // would be a failure of the balancer's, not of the replica).
    const headers = { ...req.headers, host: target.host, connection: 'close' };
    const up = request(target, { method: req.method, headers, agent: false }, (answer) => {
      counts.set(backend, (counts.get(backend) ?? 0) + 1);
      const record: BalancedAnswer = {
        backend,
        method: req.method ?? '',
        path: target.pathname,
        status: answer.statusCode ?? 502,
        body: '',
      };
      answers.push(record);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (c: Buffer) => (record.body += c.toString('utf8')));
      answer.pipe(res);
      open.set(answer, backend);
      answer.on('close', () => open.delete(answer));
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      errors.push(`${backend} ${req.url}: ${e.code ?? e.message}`);
      // Refused before an answer began: the replica is gone (or going); try the next one.
      if (!res.headersSent && (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET'))
        return forward(req, body, res, first, tried + 1);
      res.destroy();
    });
    res.on('close', () => up.destroy());
    up.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, Buffer.concat(chunks), res, next++, 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    counts,
    answers,
    errors,
    add(backend) {
      backends.push(backend);
      counts.set(backend, 0);
    },
    kill(backend) {
      const at = backends.indexOf(backend);
      if (at !== -1) backends.splice(at, 1);
      for (const [answer, from] of open) if (from === backend) answer.destroy();
    },
    servedBy: () => [...open.values()],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open.keys()) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
