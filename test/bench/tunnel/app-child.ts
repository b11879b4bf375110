// The tunnel bench's local app, in its own process: answers every POST 200 at once and notes when
// each message id first arrived (epoch ms, high resolution). A "report" line on stdin prints
// {"type":"arrivals","arrivals":{id: ms}} and forgets them.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { emit } from '../monitor/child-common';
import { serveOnLoopback } from '../support/child-server';

const arrivals = new Map<string, number>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const m = /"id":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'));
    if (m && !arrivals.has(m[1]!)) arrivals.set(m[1]!, performance.timeOrigin + performance.now());
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
});
serveOnLoopback(server);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'report') return;
  emit({ type: 'arrivals', arrivals: Object.fromEntries(arrivals) });
  arrivals.clear();
});
