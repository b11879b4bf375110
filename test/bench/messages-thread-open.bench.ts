// Opening a long Messages thread, in Chromium: a thread of 20,000 messages (10,000 received, in the
// tunnel's log; 10,000 sent, in the send log; one every 20 s over four and a half days) is in the
// data folder before `channel-companion serve` starts. Ours: the Messages screen of the agent is
// open (the inbox loaded, a fresh page each round), the thread's route is set, and we time until
// the newest message is in the DOM and then on screen (the end of the first frame painted after
// it), and count the message nodes then (at most 300). Baseline: a bare page at the host's origin
// asks the host's messages.thread for the last 50 messages of the same thread and appends one <li>
// each, timed the same way. Rounds alternate (bare, ours, ours, bare, …) after a warm-up of each;
// ratio = bare median ÷ ours median, on screen (target 0.67: ours within 1.5× the bare page).
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { hostCall } from '../e2e/support/serve';
import { median } from '../helpers/bench-stats';
import { AGENT, fillThread, messagesHash, r2, startWorld, type World } from './messages-ui/world';

export const target = 1 / 1.5;

const COUNT = 20_000;
const CONTACT = '15550300000';
const ROUNDS = Number(process.env.MESSAGES_OPEN_ROUNDS ?? 8);
const WARMUP = 2;
const MAX_NODES = 300;
const TRACE = process.env.MESSAGES_OPEN_TRACE;
const BARE_HTML = readFileSync(new URL('./messages-ui/bare-thread.html', import.meta.url));
/** The newest message's text starts so (message i reads `message <i>: …`). */
const NEWEST = `message ${COUNT - 1}:`;

interface Opened {
  /** ms from the action to the newest message in the DOM. */
  dom: number;
  /** ms from the action to the end of the first frame painted with it. */
  screen: number;
  /** Message nodes in the DOM then. */
  nodes: number;
  /** ms from the action to the thread's request leaving, its answer's first byte and its last (resource timing). */
  sent: number;
  answered: number;
  read: number;
  /** Requests the page started between the action and the newest message in the DOM. */
  requests: number;
}

/**
 * In the page: runs `action` (a script), then resolves once a node with `needle` is added (the
 * DOM time) and the next frame is painted (a message posted from that frame's rAF callback runs
 * once it is painted).
 */
function openProbe(needle: string, action: string, nodes: string): string {
  return `new Promise((resolve) => {
  let t0 = 0;
  const mo = new MutationObserver((records) => {
    for (const r of records)
      for (const n of r.addedNodes) {
        if (!(n.textContent || '').includes(${JSON.stringify(needle)})) continue;
        const dom = performance.now() - t0;
        mo.disconnect();
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => {
            const screen = performance.now() - t0;
            const req = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/messages.thread') && e.startTime >= t0)[0];
            const at = (x) => (req && x > 0 ? x - t0 : -1);
            resolve({
              dom,
              screen,
              nodes: document.querySelectorAll(${JSON.stringify(nodes)}).length,
              sent: at(req?.startTime),
              answered: at(req?.responseStart),
              read: at(req?.responseEnd),
              requests: performance.getEntriesByType('resource').filter((e) => e.startTime >= t0 && e.startTime <= t0 + dom).length,
            });
          };
          ch.port2.postMessage(0);
        });
        return;
      }
  });
  mo.observe(document.body, { childList: true, subtree: true });
  t0 = performance.now();
  ${action};
})`;
}

/** A fresh page of the app on the agent's Messages screen, the inbox loaded (not timed). */
async function oursReady(page: Page, w: World): Promise<void> {
  // A new document (a goto that changes only the hash would keep the page, and the thread loaded before).
  await page.goto('about:blank');
  await page.goto(w.appUrl);
  await page.waitForFunction(`!location.hash.includes('token=')`);
  await page.evaluate(`location.hash = ${JSON.stringify(messagesHash(w.teamId))}`);
  await page.locator('a.messages-contact').first().waitFor();
  await page.getByText('Choose a conversation.').waitFor();
}

async function oursOpen(page: Page, w: World, ready = false): Promise<Opened> {
  if (!ready) await oursReady(page, w);
  const hash = messagesHash(w.teamId, `+${CONTACT}`);
  return (await page.evaluate(
    openProbe(NEWEST, `location.hash = ${JSON.stringify(hash)}`, '.messages-bubble'),
  )) as Opened;
}

async function bareOpen(page: Page, w: World, bareUrl: string): Promise<Opened> {
  await page.goto(bareUrl);
  const token = new URL(w.appUrl).hash.replace(/^#token=/, '');
  const args = { teamId: w.teamId, agentId: AGENT, phone: `+${CONTACT}` };
  return (await page.evaluate(
    openProbe(NEWEST, `window.bareOpen(${JSON.stringify(token)}, ${JSON.stringify(args)})`, 'li.bare-msg'),
  )) as Opened;
}

/** The medians of a side's request times and what follows the answer. */
function split(xs: Opened[]) {
  return {
    sent: r2(median(xs.map((x) => x.sent))),
    host: r2(median(xs.map((x) => x.answered - x.sent))),
    answered: r2(median(xs.map((x) => x.answered))),
    read: r2(median(xs.map((x) => x.read))),
    readToDom: r2(median(xs.map((x) => x.dom - x.read))),
    domToScreen: r2(median(xs.map((x) => x.screen - x.dom))),
    requests: Math.max(...xs.map((x) => x.requests)),
  };
}

export async function run() {
  const w = await startWorld('Thread open bench', (dataDir) => fillThread(dataDir, CONTACT, COUNT, Date.now()));
  try {
    const ours = await w.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const bare = await w.browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The bare page is served at the host's own origin (its request is same-origin, as the app's).
    const bareUrl = `${w.serve.ready.origin}/bench-bare-thread.html`;
    await bare.route(bareUrl, (r) =>
      r.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: BARE_HTML }),
    );
    // The whole thread is there (the index counts it) before anything is timed.
    const inbox = await hostCall<{ contacts: Array<{ contact: string; count: number }> }>(
      w.serve.ready,
      'messages.contacts',
      { teamId: w.teamId, agentId: AGENT },
    );
    const thread = inbox.contacts.find((c) => c.contact === `+${CONTACT}`);
    if (thread?.count !== COUNT) throw new Error(`the thread holds ${thread?.count ?? 0} messages, not ${COUNT}`);
    for (let i = 0; i < WARMUP; i++) {
      await bareOpen(bare, w, bareUrl);
      await oursOpen(ours, w);
    }
    const o: Opened[] = [];
    const b: Opened[] = [];
    if (TRACE) {
      // A Chromium trace of one more round of ours, not counted (open it in DevTools' Performance panel).
      await oursReady(ours, w);
      await w.browser.startTracing(ours, {
        path: TRACE,
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'loading'],
      });
      await oursOpen(ours, w, true);
      await w.browser.stopTracing();
    }
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        b.push(await bareOpen(bare, w, bareUrl));
        o.push(await oursOpen(ours, w));
      } else {
        o.push(await oursOpen(ours, w));
        b.push(await bareOpen(bare, w, bareUrl));
      }
    }
    const oursScreen = median(o.map((x) => x.screen));
    const bareScreen = median(b.map((x) => x.screen));
    const maxNodes = Math.max(...o.map((x) => x.nodes));
    return {
      name: 'messages-thread-open',
      ratio: bareScreen / oursScreen,
      target,
      pass: maxNodes <= MAX_NODES && maxNodes > 0,
      unit: 'ms to the newest message on screen (median)',
      messages: COUNT,
      oursScreenMs: r2(oursScreen),
      bareScreenMs: r2(bareScreen),
      oursOverBare: r2(oursScreen / bareScreen),
      oursDomMs: r2(median(o.map((x) => x.dom))),
      bareDomMs: r2(median(b.map((x) => x.dom))),
      // Where the time goes (medians, ms from the action): the thread's request leaving, its answer's
      // first and last byte (the host's part is answered − sent), then the page's part (read → DOM).
      oursSplit: split(o),
      bareSplit: split(b),
      oursPerRound: o.map((x) => r2(x.screen)),
      barePerRound: b.map((x) => r2(x.screen)),
      messageNodes: maxNodes,
      maxMessageNodes: MAX_NODES,
      bareNodes: b[0]?.nodes ?? 0,
      rounds: ROUNDS,
    };
  } finally {
    await w.stop();
  }
}
