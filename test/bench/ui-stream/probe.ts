// In-page measurement, the same for our chat window and for the bare page. Each latency stamp
// ⟨t=<epoch ms>⟩ written by the emulator is timed twice:
// - in the DOM: a MutationObserver on a container reads, at each DOM change, the text that change
//   brought and notes each new stamp (the token is in the document);
// - on screen: the end of the rendering update (style, layout, paint) of the frame that first shows
//   it — a requestAnimationFrame loop posts a message each frame, which runs once the frame is
//   painted (see the frame attribution below).
// Long tasks are collected by a PerformanceObserver. The page clock is performance.timeOrigin +
// now(), the emulator's is the same wall clock (same machine). Kept as plain JavaScript text
// (page.evaluate of a string), so no transpiler helper ends up in code that runs in the page.
export interface ProbeResult {
  /** ms from a stamp leaving the emulator to it being in the DOM. */
  dom: number[];
  /** ms from a stamp leaving the emulator to the end of the first frame painted with it. */
  screen: number[];
  longTasks: number[];
  /** When each long task started, in ms after the probe started (the stream ends at about stoppedAt). */
  longTaskAt: number[];
  /** ms from the probe's start to its stop (the end of the turn). */
  stoppedAt: number;
  /** Long animation frames (over 50 ms) with what ran in them, to explain a long task. */
  longFrames: Array<{ ms: number; blockingMs: number; scripts: string[] }>;
}

export function probeScript(root: string): string {
  return `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const dom = [];
  const screen = [];
  const longTasks = [];
  const longTaskAt = [];
  const startedAt = performance.now();
  const rootEl = document.querySelector(${JSON.stringify(root)});
  if (!rootEl) throw new Error('no ' + ${JSON.stringify(root)});
  // Frames: the probe's rAF callback runs first in every frame (it re-registers during the previous
  // frame, before anything else can); from it until the message it posts (which runs once the
  // frame is painted) the page is inside that frame's rendering update, and a mutation made then
  // (e.g. by a page that commits in its own rAF callback) is painted in this frame. A mutation made
  // outside it is painted in the next one. (A task that runs after the paint but before the message
  // would count as painted one frame early: that error can only favour the page that mutates
  // outside rAF — the bare page — never ours.)
  let inRender = false;
  let thisFrame = [];
  let nextFrame = [];
  let running = true;
  const painted = new MessageChannel();
  painted.port1.onmessage = () => {
    const t = now();
    inRender = false;
    for (const sent of thisFrame) screen.push(t - sent);
    thisFrame = [];
  };
  const onFrame = () => {
    if (!running) return;
    inRender = true;
    thisFrame = thisFrame.concat(nextFrame);
    nextFrame = [];
    painted.port2.postMessage(0);
    requestAnimationFrame(onFrame);
  };
  requestAnimationFrame(onFrame);
  const re = /\u27e8t=([\\d.]+)\u27e9/g;
  // Stamps are read from what each DOM change brought (the text of the nodes added, the new text
  // of the nodes changed), never from the whole reply: reading a growing reply's textContent on every
  // change would make the probe itself allocate tens of MB of strings per run. Text moved or
  // rebuilt (a paragraph's runs, a finished reply) repeats stamps already seen; stamps sent before
  // the probe started belong to earlier replies.
  const seen = new Set();
  const since = now();
  const scan = (text, t) => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const sent = Number(m[1]);
      if (sent < since || seen.has(sent)) continue;
      seen.add(sent);
      dom.push(t - sent);
      (inRender ? thisFrame : nextFrame).push(sent);
    }
  };
  const mo = new MutationObserver((records) => {
    const t = now();
    for (const r of records) {
      if (r.type === 'characterData') scan(r.target.data, t);
      else for (const n of r.addedNodes) scan(n.nodeType === 3 ? n.data : n.textContent || '', t);
    }
  });
  mo.observe(rootEl, { childList: true, subtree: true, characterData: true });
  const po = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      longTasks.push(e.duration);
      longTaskAt.push(Math.round(e.startTime - startedAt));
    }
  });
  po.observe({ type: 'longtask' });
  const longFrames = [];
  const lo = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= 50) continue;
      const scripts = (e.scripts || []).map((x) => Math.round(x.duration) + ' ms ' + x.invokerType + ' ' + x.invoker + ' ' + (x.sourceFunctionName || '?') + '@' + String(x.sourceURL || '').split('/').pop());
      longFrames.push({ ms: Math.round(e.duration), blockingMs: Math.round(e.blockingDuration || 0), scripts });
    }
  });
  try { lo.observe({ type: 'long-animation-frame' }); } catch { /* not supported */ }
  window.__probe = {
    stop() {
      const stoppedAt = Math.round(performance.now() - startedAt);
      mo.disconnect();
      po.disconnect();
      lo.disconnect();
      // Two more frames settle what is pending, then the loop ends.
      return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
        running = false;
        resolve({ dom, screen, longTasks, longTaskAt, stoppedAt, longFrames });
      }, 20))));
    },
  };
})()`;
}

export const STOP_PROBE = 'window.__probe.stop()';
