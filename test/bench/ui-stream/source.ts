// The token source for the UI streaming bench: an HTTP server that stands in front of the
// emulator. POST /api/v1/agents/:id/chat answers with the emulator's SSE wire format (event: token
// {token}, then event: done {reply, conversationId, actions, usage}) paced at a set rate; every
// other /api/ request is proxied to the emulator unchanged; GET /bare.html serves the bare reader.
// Why not the emulator itself: its chat-script takes at most 10,000 tokens and whole-millisecond
// delays (one token per timer, so ≤ ~1,000 tokens/s), and the bench needs 20,000 at 2,000/s.
// Every MARK_EVERY-th token carries ⟨t=<epoch ms>⟩, stamped when its chunk is written.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import httpProxy from 'http-proxy';

export const MARK_EVERY = 100;
const BARE = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'bare.html'));

export interface StreamPlan {
  tokens: number;
  perSecond: number;
}

export interface StreamRecord {
  text: string;
  tokens: number;
  firstWriteAt: number;
  lastWriteAt: number;
  writes: number;
}

export interface TokenSource {
  url: string;
  /** The plan the next chat request streams. */
  plan(p: StreamPlan): void;
  /** Resolves with what the next (or current) stream wrote once it ends. */
  nextStream(): Promise<StreamRecord>;
  chats: number;
  close(): Promise<void>;
}

/** Epoch ms with sub-ms precision (the page computes the same from its own performance clock). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

function stream(res: ServerResponse, plan: StreamPlan, done: (r: StreamRecord) => void): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-ratelimit-limit': '60' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let i = 0;
  let text = '';
  let writes = 0;
  let firstWriteAt = 0;
  let lastWriteAt = 0;
  const t0 = nowMs();
  let closed = false;
  res.on('close', () => (closed = true));
  const tick = (): void => {
    if (closed) return;
    const now = nowMs();
    const due = Math.min(plan.tokens, Math.floor(((now - t0) * plan.perSecond) / 1000) + 1);
    let chunk = '';
    for (; i < due; i++) {
      const token = i % MARK_EVERY === 0 ? `⟨t=${now.toFixed(2)}⟩ ` : 'ab ';
      text += token;
      chunk += `event: token\ndata: ${JSON.stringify({ token })}\n\n`;
    }
    if (chunk) {
      res.write(chunk);
      writes++;
      if (!firstWriteAt) firstWriteAt = now;
      lastWriteAt = now;
    }
    if (i >= plan.tokens) {
      const reply = { reply: text, conversationId: 'conv_bench', actions: [], usage: { inputTokens: 1, outputTokens: plan.tokens, totalTokens: plan.tokens + 1 } };
      res.end(`event: done\ndata: ${JSON.stringify(reply)}\n\n`);
      done({ text, tokens: plan.tokens, firstWriteAt, lastWriteAt, writes });
      return;
    }
    setTimeout(tick, 1);
  };
  tick();
}

export async function startTokenSource(emulatorBaseUrl: string): Promise<TokenSource> {
  const proxy = httpProxy.createProxyServer({ target: emulatorBaseUrl, xfwd: false });
  proxy.on('error', (_e, _req, res) => {
    if ('writeHead' in res && !res.headersSent) res.writeHead(502).end();
  });
  let plan: StreamPlan = { tokens: 10, perSecond: 1000 };
  let waiter: ((r: StreamRecord) => void) | null = null;
  let pending: Promise<StreamRecord> | null = null;
  const src = {
    chats: 0,
  } as TokenSource;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/bare.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BARE);
      return;
    }
    if (req.method === 'POST' && /^\/api\/v1\/agents\/[^/]+\/chat$/.test(path)) {
      req.resume();
      req.on('end', () => {
        src.chats++;
        const w = waiter;
        waiter = null;
        pending = null;
        stream(res, plan, (r) => w?.(r));
      });
      return;
    }
    proxy.web(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(src, {
    url: `http://127.0.0.1:${port}`,
    plan: (p: StreamPlan) => {
      plan = p;
    },
    nextStream: () => (pending ??= new Promise<StreamRecord>((r) => (waiter = r))),
    close: () =>
      new Promise<void>((r) => {
        proxy.close();
        server.close(() => r());
        server.closeAllConnections();
      }),
  });
}
