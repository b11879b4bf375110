// The hub-fanout bench's local apps, in one process of their own: an HTTP server that answers every POST 200 at
// once and notes, per path (each listener forwards to a path of its own), every message id in the order it arrived
// and when (epoch ms, high resolution) — repeats included, so the bench can tell a delivery forwarded twice. A
// "report" line on stdin prints {"type":"arrivals","arrivals":{path: [[id, ms], …]}} and forgets them.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { emit } from '../monitor/child-common';
import { serveOnLoopback } from '../support/child-server';

let arrivals: Record<string, [string, number][]> = {};
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const m = /"id":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'));
    (arrivals[req.url ?? '/'] ??= []).push([m?.[1] ?? '?', at]);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
});
serveOnLoopback(server);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'report') return;
  emit({ type: 'arrivals', arrivals });
  arrivals = {};
});
