// In-page measurement, the same for our chat window and for the bare page. Each latency stamp
// ⟨t=<epoch ms>⟩ written by the emulator is timed twice:
// - in the DOM: a MutationObserver on a container reads, at each DOM change, the text of the last
//   element matching a selector and notes each new stamp (the token is in the document);
// - on screen: the end of the rendering update (style, layout, paint) of the first frame after
//   that — a requestAnimationFrame callback posts a message, which runs once the frame is painted.
//   Stamps seen by the observer after a frame's rAF wait for the next frame.
// Long tasks are collected by a PerformanceObserver. The page clock is performance.timeOrigin +
// now(), the emulator's is the same wall clock (same machine). Kept as plain JavaScript text
// (page.evaluate of a string), so no transpiler helper ends up in code that runs in the page.
export interface ProbeResult {
  /** ms from a stamp leaving the emulator to it being in the DOM. */
  dom: number[];
  /** ms from a stamp leaving the emulator to the end of the first frame painted with it. */
  screen: number[];
  longTasks: number[];
}

export function probeScript(root: string, target: string): string {
  return `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const dom = [];
  const screen = [];
  const longTasks = [];
  const rootEl = document.querySelector(${JSON.stringify(root)});
  if (!rootEl) throw new Error('no ' + ${JSON.stringify(root)});
  let el = null;
  let from = 0;
  let waiting = [];
  let frameAsked = false;
  const painted = new MessageChannel();
  let inFrame = [];
  painted.port1.onmessage = () => {
    const t = now();
    for (const sent of inFrame) screen.push(t - sent);
    inFrame = [];
  };
  const onFrame = () => {
    frameAsked = false;
    inFrame = inFrame.concat(waiting);
    waiting = [];
    painted.port2.postMessage(0);
  };
  const re = /\\u27e8t=([\\d.]+)\\u27e9/g;
  const mo = new MutationObserver(() => {
    const t = now();
    const all = rootEl.querySelectorAll(${JSON.stringify(target)});
    const last = all[all.length - 1] || null;
    if (last !== el) { el = last; from = 0; }
    if (!el) return;
    const text = el.textContent || '';
    if (text.length < from) from = 0;
    re.lastIndex = from;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const sent = Number(m[1]);
      dom.push(t - sent);
      waiting.push(sent);
      from = re.lastIndex;
    }
    if (waiting.length && !frameAsked) { frameAsked = true; requestAnimationFrame(onFrame); }
  });
  mo.observe(rootEl, { childList: true, subtree: true, characterData: true });
  const po = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  po.observe({ type: 'longtask' });
  window.__probe = {
    stop() {
      mo.disconnect();
      po.disconnect();
      return new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve({ dom, screen, longTasks }), 20)));
    },
  };
})()`;
}

export const STOP_PROBE = 'window.__probe.stop()';
