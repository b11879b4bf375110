// Keeps a scrolling list pinned to its bottom while its rows grow (a streaming reply stays in view),
// as long as the person has not scrolled up; scrolling back to the bottom follows again. Sizes are
// read in ResizeObserver callbacks, after layout, so following costs no extra layout per token.
import { useEffect, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "at the bottom". */
const SLACK = 24;

export function useFollowBottom(listRef: RefObject<HTMLElement | null>, rowCount: number): void {
  useEffect(() => {
    const list = listRef.current;
    if (!list || typeof ResizeObserver === 'undefined') return;
    let follow = true;
    const onScroll = (): void => {
      follow = list.scrollHeight - list.scrollTop - list.clientHeight <= SLACK;
    };
    const ro = new ResizeObserver(() => {
      if (follow) list.scrollTop = list.scrollHeight;
    });
    for (const row of Array.from(list.children)) ro.observe(row);
    list.addEventListener('scroll', onScroll, { passive: true });
    // A new row (a message just sent) brings the view back to the bottom.
    list.scrollTop = list.scrollHeight;
    return () => {
      ro.disconnect();
      list.removeEventListener('scroll', onScroll);
    };
  }, [listRef, rowCount]);
}
