// Where keyboard focus goes when what holds it goes away, so it never falls back to <body>.
//
// focusPageHeading: after a route change, the page back at its top (the app header in view) and
// focus on the new screen's heading (its first h2), so keyboard and screen-reader users land where
// a page load would put them. A screen that renders its heading a little later is waited for over a
// few frames; after that the main region takes focus, and hands it on to the heading when it comes
// (a lazily loaded screen) unless focus has moved on.
//
// keepFocus / useKeepFocus: when the focused control inside a container is removed or disabled (a
// button replaced by what it started, a form closed, a notice dismissed), focus goes to the
// fallback the container names (the element that replaced the control, the next item).
import { useEffect, useRef, type RefObject } from 'react';
import { afterNextPaint } from '../store/frame-batch';

const FRAMES = 10;

/** Calls `found` with the first match of `find` in `root`, now or when it is added; stops when `keep()` is false. */
function whenPresent(
  root: HTMLElement,
  find: () => HTMLElement | null,
  found: (el: HTMLElement) => void,
  keep: () => boolean,
): () => void {
  const win = root.ownerDocument.defaultView;
  if (!win?.MutationObserver) return () => {};
  const observer = new win.MutationObserver(() => {
    if (!keep()) return observer.disconnect();
    const el = find();
    if (!el) return;
    observer.disconnect();
    found(el);
  });
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}

function focusHeading(heading: HTMLElement): void {
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: true });
}

export function focusPageHeading(main: HTMLElement, frames = FRAMES): () => void {
  const doc = main.ownerDocument;
  const scroller = doc.scrollingElement ?? doc.documentElement;
  scroller.scrollTop = 0;
  const win = doc.defaultView;
  const find = () => main.querySelector<HTMLElement>('h2');
  let raf: number | null = null;
  let stopWaiting: (() => void) | null = null;
  const attempt = (left: number) => {
    raf = null;
    const heading = find();
    if (heading) {
      focusHeading(heading);
    } else if (left > 0 && win) {
      raf = win.requestAnimationFrame(() => attempt(left - 1));
    } else {
      main.focus({ preventScroll: true });
      stopWaiting = whenPresent(main, find, focusHeading, () => doc.activeElement === main);
    }
  };
  attempt(frames);
  return () => {
    if (raf !== null && win) win.cancelAnimationFrame(raf);
    stopWaiting?.();
  };
}

/** The heading of the part of the screen a route opens (a thread), if the screen marks one. */
export function partHeading(main: HTMLElement): HTMLElement | null {
  return main.querySelector<HTMLElement>('[data-route-heading]');
}

export function focusPartHeading(heading: HTMLElement): () => void {
  const doc = heading.ownerDocument;
  const was = doc.activeElement;
  return afterNextPaint(() => {
    const now = doc.activeElement;
    if (!heading.isConnected || (now !== was && now !== null && now !== doc.body)) return;
    focusHeading(heading);
  });
}

const isDisabled = (el: Element) => (el as HTMLButtonElement).disabled === true;

/**
 * While installed: when the element focused last inside `container` is removed or disabled and focus
 * has fallen to <body>, `fallback()` takes it (nothing happens when it returns null). Focus that
 * has moved elsewhere on purpose is never taken back.
 */
function keepFocus(container: HTMLElement, fallback: () => HTMLElement | null): () => void {
  const doc = container.ownerDocument;
  const win = doc.defaultView;
  let last: Element | null = null;
  const onFocusIn = (e: FocusEvent) => {
    const target = e.target instanceof Element ? e.target : null;
    last = target && container.contains(target) ? target : null;
  };
  const rescue = () => {
    const active = doc.activeElement;
    if (!last || (active && active !== doc.body)) return;
    if (last.isConnected && !isDisabled(last)) return;
    const next = fallback();
    if (!next || next === last) return;
    if (!next.hasAttribute('tabindex') && next.tabIndex < 0) next.setAttribute('tabindex', '-1');
    next.focus({ preventScroll: true });
  };
  doc.addEventListener('focusin', onFocusIn);
  const observer = win?.MutationObserver ? new win.MutationObserver(rescue) : null;
  observer?.observe(container, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
  if (container.contains(doc.activeElement)) last = doc.activeElement;
  return () => {
    doc.removeEventListener('focusin', onFocusIn);
    observer?.disconnect();
  };
}

/** keepFocus on `container` while mounted; `fallback` may change between renders. */
export function useKeepFocus(container: RefObject<HTMLElement | null>, fallback: () => HTMLElement | null): void {
  const latest = useRef(fallback);
  latest.current = fallback;
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    return keepFocus(el, () => latest.current());
  }, [container]);
}
