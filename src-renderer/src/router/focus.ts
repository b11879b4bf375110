// After a route change: the page back at its top (the app header in view) and focus on the new
// screen's heading (its first h2), so keyboard and screen-reader users land where a page load would
// put them. A screen that renders its heading a little later is waited for over a few frames; with
// none, the main region takes focus.
const FRAMES = 10;

export function focusPageHeading(main: HTMLElement, frames = FRAMES): () => void {
  const doc = main.ownerDocument;
  const scroller = doc.scrollingElement ?? doc.documentElement;
  scroller.scrollTop = 0;
  const win = doc.defaultView;
  let raf: number | null = null;
  const attempt = (left: number) => {
    raf = null;
    const heading = main.querySelector<HTMLElement>('h2');
    if (heading) {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
    } else if (left > 0 && win) {
      raf = win.requestAnimationFrame(() => attempt(left - 1));
    } else {
      main.focus({ preventScroll: true });
    }
  };
  attempt(frames);
  return () => {
    if (raf !== null && win) win.cancelAnimationFrame(raf);
  };
}
