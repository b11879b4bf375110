// The hub-fanout bench's fan-out floor, one listener in a process of its own: the least a listener can do with a
// relay's deliveries (relay-child.ts). It reads the relay's GET /events with undici and eventsource-parser, and
// POSTs each delivery's body with its signature headers to its app (`target`), one at a time per agent in the order
// the events came, as `listen --forward-to` does. Says `ready` once the stream is open. Nothing else: no resume
// after a drop, no duplicate check, no retry, no record of the forward.
import { createParser } from 'eventsource-parser';
import { request } from 'undici';
import { z } from 'zod';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { relay, target } = parseArg(z.strictObject({ relay: z.string().url(), target: z.string().url() }));

interface Relayed {
  agent: string;
  headers: Record<string, string>;
  body: string;
}

/** Each agent's last forward: the next one starts after it. */
const chains = new Map<string, Promise<void>>();

async function forward(d: Relayed): Promise<void> {
  try {
    const res = await request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...d.headers },
      body: d.body,
    });
    await res.body.dump();
  } catch (e) {
    process.stderr.write(`forward: ${(e as Error).message}\n`);
  }
}

const stream = new AbortController();
const res = await request(`${relay}/events`, { signal: stream.signal, bodyTimeout: 0 });
const parser = createParser({
  onEvent(ev) {
    if (ev.event !== 'delivery') return;
    const d = JSON.parse(ev.data) as Relayed;
    const next = (chains.get(d.agent) ?? Promise.resolve()).then(() => forward(d));
    chains.set(d.agent, next);
  },
});
emit({ type: 'ready' });
void (async () => {
  const text = new TextDecoder();
  for await (const chunk of res.body) parser.feed(text.decode(chunk as Buffer, { stream: true }));
})().catch(() => undefined);

exitWithParent(async () => stream.abort());
