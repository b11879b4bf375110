// Live Messages, in Chromium: `channel-companion serve`'s receiver is registered as the agent's
// webhook (through the emulator, which issues the signing secret); the bench then posts signed
// message.received deliveries to the receiver itself, as the service would, at 50 a second across
// 20 contacts, while the page shows the thread of one of them (2,000 messages of history). For each
// message of that thread it times, on one wall clock (same machine):
// - ack: the receiver's 200 reaching the bench (the delivery is stored and acknowledged);
// - received: the renderer reading the messages.new event off the host's event stream (the page's
//   TextDecoder, which the stream's reader decodes each chunk with, is wrapped to note it);
// - painted: the end of the first frame painted with the message's bubble in the DOM.
// Checks: p99 of ack → painted ≤ 250 ms; every message in the DOM within the animation frame in
// which the renderer received it (before the next frame starts); frames whose interval exceeds
// one frame and a half (16.7 ms × 1.5: a frame's work took over 16 ms) counted, with the longest
// rendering update. ratio = 250 ms ÷ p99 (target 1).
import { signDelivery } from '../../src-main/core/signature';
import { hostCall } from '../e2e/support/serve';
import { AGENT, fillThread, messagesHash, pct, r2, startWorld } from './messages-ui/world';

export const target = 1;

const PER_SECOND = 50;
const CONTACTS = 20;
const SECONDS = Number(process.env.MESSAGES_LIVE_SECONDS ?? 30);
const HISTORY = 2_000;
const P99_MS = 250;
const FRAME_MS = 1000 / 60;
const contactOf = (k: number) => String(15550310000 + k);
/** The open thread's contact: every CONTACTS-th message is its. */
const OPEN = contactOf(0);

/** Before the app loads: the TextDecoder wrap that notes when each `live <n>:` stamp of a messages.new event is read. */
const RECEIVE_HOOK = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const live = (window.__live = { recv: {}, recvFrame: {}, frame: 0 });
  const decode = TextDecoder.prototype.decode;
  const re = /live (\\d+):/g;
  TextDecoder.prototype.decode = function (...args) {
    const s = decode.apply(this, args);
    if (s.includes('messages.new')) {
      re.lastIndex = 0;
      for (let m = re.exec(s); m; m = re.exec(s))
        if (!(m[1] in live.recv)) {
          live.recv[m[1]] = now();
          live.recvFrame[m[1]] = live.frame;
        }
    }
    return s;
  };
})()`;

/** The frame loop and the DOM observer on the thread (see the file's head). */
const PROBE = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const live = window.__live;
  live.dom = {};
  live.domFrame = {};
  live.painted = {};
  live.intervals = [];
  live.updates = [];
  live.longTasks = [];
  let inRender = false;
  let thisFrame = [];
  let nextFrame = [];
  let running = true;
  let lastStart = 0;
  let start = 0;
  const painted = new MessageChannel();
  painted.port1.onmessage = () => {
    const t = now();
    inRender = false;
    live.updates.push(t - start);
    for (const n of thisFrame) live.painted[n] = t;
    thisFrame = [];
  };
  const onFrame = () => {
    if (!running) return;
    start = now();
    if (lastStart) live.intervals.push(start - lastStart);
    lastStart = start;
    live.frame++;
    inRender = true;
    thisFrame = thisFrame.concat(nextFrame);
    nextFrame = [];
    painted.port2.postMessage(0);
    requestAnimationFrame(onFrame);
  };
  requestAnimationFrame(onFrame);
  const re = /live (\\d+):/;
  const mo = new MutationObserver((records) => {
    const t = now();
    for (const r of records)
      for (const n of r.addedNodes) {
        const m = re.exec(n.textContent || '');
        if (!m || m[1] in live.dom) continue;
        live.dom[m[1]] = t;
        live.domFrame[m[1]] = live.frame;
        (inRender ? thisFrame : nextFrame).push(m[1]);
      }
  });
  mo.observe(document.querySelector('.messages-scroller'), { childList: true, subtree: true });
  const po = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) live.longTasks.push(e.duration);
  });
  po.observe({ type: 'longtask' });
  live.stop = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    running = false;
    mo.disconnect();
    po.disconnect();
    const { stop, ...out } = live;
    resolve(out);
  }, 20))));
})()`;

interface LiveOut {
  recv: Record<string, number>;
  recvFrame: Record<string, number>;
  dom: Record<string, number>;
  domFrame: Record<string, number>;
  painted: Record<string, number>;
  intervals: number[];
  updates: number[];
  longTasks: number[];
}

const wallNow = () => performance.timeOrigin + performance.now();

export async function run() {
  const w = await startWorld('Live messages bench', (dataDir) => fillThread(dataDir, OPEN, HISTORY, Date.now()));
  try {
    let listenUrl: string | null = null;
    for (let i = 0; i < 100 && !listenUrl; i++) {
      listenUrl = (await hostCall<{ listenUrl: string | null }>(w.serve.ready, 'tunnel.status')).listenUrl;
      if (!listenUrl) await new Promise((r) => setTimeout(r, 100));
    }
    if (!listenUrl) throw new Error('the receiver does not listen');
    const hook = `${listenUrl}/hooks/${AGENT}`;
    // Tried again on a keychain error: two absent-key checks at once in the app share one probe
    // entry and can read each other's deletion (a race of the app's keychain store, not of this bench).
    for (let attempt = 1; ; attempt++) {
      try {
        await hostCall(w.serve.ready, 'webhook.register', { teamId: w.teamId, agentId: AGENT, publicUrl: hook });
        break;
      } catch (e) {
        if (attempt >= 5 || !/KEYCHAIN/.test(String(e))) throw e;
      }
    }
    const { secret } = await hostCall<{ secret: string }>(w.serve.ready, 'webhook.revealSecret', {
      teamId: w.teamId,
      agentId: AGENT,
    });

    const page = await w.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(RECEIVE_HOOK);
    await page.goto(w.appUrl);
    await page.waitForFunction(`!location.hash.includes('token=')`);
    await page.evaluate(`location.hash = ${JSON.stringify(messagesHash(w.teamId, `+${OPEN}`))}`);
    await page
      .locator('.messages-scroller')
      .getByText(`message ${HISTORY - 1}:`)
      .waitFor();

    const ack = new Map<number, number>();
    const statuses = new Map<number, number>();
    const post = async (i: number, warm = false): Promise<void> => {
      const contact = contactOf(i % CONTACTS);
      const body = JSON.stringify({
        event: 'message.received',
        from: contact,
        message: {
          id: `wamid_${warm ? 'warm' : 'live'}_${i}`,
          type: 'text',
          text: `${warm ? 'warm' : 'live'} ${i}: are you there?`,
          fromMe: false,
        },
        timestamp: new Date().toISOString(),
      });
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signDelivery(secret, body, Date.now() / 1000) },
        body,
      });
      if (!warm && i % CONTACTS === 0) ack.set(i, wallNow());
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      await res.arrayBuffer();
    };

    // Warm-up: a second of deliveries, not measured.
    const total = SECONDS * PER_SECOND;
    const warm: Promise<void>[] = [];
    for (let i = 0; i < PER_SECOND; i++) {
      warm.push(post(i, true));
      await new Promise((r) => setTimeout(r, 1000 / PER_SECOND));
    }
    await Promise.all(warm);
    await page.evaluate(PROBE);
    const sent: Promise<void>[] = [];
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sent.push(post(i));
    }
    await Promise.all(sent);
    const elapsed = (performance.now() - t0) / 1000;
    // The last ones reach the page.
    const openIds = [...ack.keys()];
    await page
      .waitForFunction(`${JSON.stringify(openIds.map(String))}.every((n) => n in window.__live.painted)`, undefined, {
        timeout: 10_000,
        polling: 250,
      })
      .catch(() => undefined);
    const out = (await page.evaluate('window.__live.stop()')) as LiveOut;

    const latencies: number[] = [];
    let inFrame = 0;
    let missing = 0;
    for (const i of openIds) {
      const k = String(i);
      const painted = out.painted[k];
      const a = ack.get(i)!;
      if (painted === undefined || out.recv[k] === undefined || out.domFrame[k] === undefined) {
        missing++;
        continue;
      }
      latencies.push(painted - a);
      if (out.domFrame[k] === out.recvFrame[k]) inFrame++;
    }
    const p99 = pct(latencies, 99);
    const over = out.intervals.filter((x) => x > FRAME_MS * 1.5);
    const withinOneFrame = latencies.length > 0 && inFrame === latencies.length && missing === 0;
    return {
      name: 'messages-live',
      ratio: P99_MS / p99,
      target,
      pass: withinOneFrame && p99 <= P99_MS,
      unit: 'ms from the receiver’s 200 to the message painted in the open thread',
      p99Ms: r2(p99),
      p50Ms: r2(pct(latencies, 50)),
      maxMs: r2(Math.max(...latencies)),
      receivedToPaintedP50Ms: r2(
        pct(
          openIds.flatMap((i) => {
            const k = String(i);
            return out.painted[k] !== undefined && out.recv[k] !== undefined ? [out.painted[k]! - out.recv[k]!] : [];
          }),
          50,
        ),
      ),
      openThreadMessages: openIds.length,
      measured: latencies.length,
      missing,
      inReceivingFrame: inFrame,
      withinOneFrame,
      frames: out.intervals.length + 1,
      framesOver16ms: over.length,
      longestFrameMs: r2(Math.max(0, ...out.intervals)),
      frameIntervalP99Ms: r2(pct(out.intervals, 99)),
      renderUpdateP99Ms: r2(pct(out.updates, 99)),
      longTasks: out.longTasks.length,
      longTaskMaxMs: out.longTasks.length ? r2(Math.max(...out.longTasks)) : 0,
      deliveries: total,
      contacts: CONTACTS,
      targetPerSec: PER_SECOND,
      realPerSec: r2(total / elapsed),
      statuses: Object.fromEntries(statuses),
    };
  } finally {
    await w.stop();
  }
}
