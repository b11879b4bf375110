// Chat token stream parsing, tokens per second: our decoder (ChatEventDecoder as chatStream() runs
// it on every chunk: UTF-8 decode, SSE framing, the frames kept for the raw view, the dialect-aware
// token extraction, typed events) against the same bytes fed straight to eventsource-parser (UTF-8
// decode + SSE framing + JSON.parse of each data, the least any consumer does). Same bytes, same
// chunking, alternating runs, medians.
import { createParser } from 'eventsource-parser';
import { ChatEventDecoder } from '../../src-main/core/api/sse';
import { largeStream } from '../helpers/sse-sample';
import { alternate, median } from '../helpers/bench-stats';

export const target = 0.9;

const TOKENS = 50_000;
const CHUNK = 16 * 1024;
const ROUNDS = 15;
const WARMUP = 3;

function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

export async function run() {
  const { bytes, tokens } = largeStream(TOKENS);
  const parts = chunks(bytes, CHUNK);
  let oursCount = 0;
  let baseCount = 0;

  const ours = () => {
    const d = new ChatEventDecoder({ recordFrames: true, now: () => performance.now() });
    let n = 0;
    for (const c of parts) for (const ev of d.push(c)) if (ev.type === 'token') n++;
    for (const ev of d.end()) if (ev.type === 'token') n++;
    oursCount = n;
  };
  const baseline = () => {
    const dec = new TextDecoder('utf-8');
    let n = 0;
    const p = createParser({
      onEvent: (ev) => {
        if (ev.event === 'token' && typeof (JSON.parse(ev.data) as { token?: unknown }).token === 'string') n++;
      },
    });
    for (const c of parts) p.feed(dec.decode(c, { stream: true }));
    p.feed(dec.decode());
    baseCount = n;
  };

  const t = alternate(ROUNDS, WARMUP, ours, baseline);
  if (oursCount !== tokens || baseCount !== tokens)
    throw new Error(`token counts differ: ours ${oursCount}, baseline ${baseCount}, expected ${tokens}`);
  const oursMs = median(t.a);
  const baseMs = median(t.b);
  const oursTps = tokens / (oursMs / 1000);
  const baseTps = tokens / (baseMs / 1000);
  return {
    name: 'chat-stream-parse',
    ratio: oursTps / baseTps,
    target,
    unit: 'tokens/s',
    ours: Math.round(oursTps),
    baseline: Math.round(baseTps),
    oursMedianMs: Math.round(oursMs * 100) / 100,
    baselineMedianMs: Math.round(baseMs * 100) / 100,
    tokens,
    bytes: bytes.length,
    chunkBytes: CHUNK,
    rounds: ROUNDS,
  };
}
