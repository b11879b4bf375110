// Keeps a scrolling list pinned to its bottom while its rows grow (a streaming reply stays in view),
// as long as the person has not scrolled up; coming back near the bottom follows again. Sizes are
// read in ResizeObserver callbacks, after layout, so following costs no extra layout per token.
import { useEffect, type RefObject } from 'react';

/** How close to the bottom counts as "at the bottom": a smooth scroll back down ends short by
 *  whatever arrived while it ran, so the margin is generous (a few lines). */
const nearBottom = (list: HTMLElement): boolean => list.scrollHeight - list.scrollTop - list.clientHeight <= Math.max(48, list.clientHeight * 0.15);

export function useFollowBottom(listRef: RefObject<HTMLElement | null>, rowCount: number): void {
  useEffect(() => {
    const list = listRef.current;
    if (!list || typeof ResizeObserver === 'undefined') return;
    let follow = true;
    let lastTop = list.scrollTop;
    const onScroll = (): void => {
      // Growing content never moves scrollTop and our own scrolling only goes down, so a move up is
      // the person's (unless the content shrank under a view pinned to the very bottom): stop
      // following until they come back down near the bottom.
      const gap = list.scrollHeight - list.scrollTop - list.clientHeight;
      if (list.scrollTop < lastTop && gap > 2) follow = false;
      else if (nearBottom(list)) follow = true;
      lastTop = list.scrollTop;
    };
    const ro = new ResizeObserver(() => {
      if (follow) list.scrollTop = list.scrollHeight;
    });
    for (const row of Array.from(list.children)) ro.observe(row);
    list.addEventListener('scroll', onScroll, { passive: true });
    // A new row (a message just sent) brings the view back to the bottom.
    list.scrollTop = list.scrollHeight;
    lastTop = list.scrollTop;
    return () => {
      ro.disconnect();
      list.removeEventListener('scroll', onScroll);
    };
  }, [listRef, rowCount]);
}
