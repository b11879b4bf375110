// In-page measurement, the same for our chat window and for the bare page: a MutationObserver on a
// container that, at each DOM change, reads the text of the last element matching a selector and
// records, for each new ⟨t=…⟩ marker, how long ago (epoch ms, page clock) it left the source; and a
// PerformanceObserver for long tasks. Kept as plain JavaScript text (page.evaluate of a string), so
// no transpiler helper ends up in code that runs in the page.
export interface ProbeResult {
  delays: number[];
  longTasks: number[];
}

export function probeScript(root: string, target: string): string {
  return `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const delays = [];
  const longTasks = [];
  const rootEl = document.querySelector(${JSON.stringify(root)});
  if (!rootEl) throw new Error('no ' + ${JSON.stringify(root)});
  let el = null;
  let from = 0;
  const re = /\u27e8t=([\\d.]+)\u27e9/g;
  const mo = new MutationObserver(() => {
    const t = now();
    const all = rootEl.querySelectorAll(${JSON.stringify(target)});
    const last = all[all.length - 1] || null;
    if (last !== el) { el = last; from = 0; }
    if (!el) return;
    const text = el.textContent || '';
    if (text.length < from) from = 0;
    re.lastIndex = from;
    for (let m = re.exec(text); m; m = re.exec(text)) { delays.push(t - Number(m[1])); from = re.lastIndex; }
  });
  mo.observe(rootEl, { childList: true, subtree: true, characterData: true });
  const po = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  po.observe({ type: 'longtask' });
  window.__probe = { stop() { mo.disconnect(); po.disconnect(); return { delays, longTasks }; } };
})()`;
}

export const STOP_PROBE = 'window.__probe.stop()';
