// Keeps a scrolling list pinned to its bottom while its rows grow (a streaming reply stays in view),
// as long as the person has not scrolled up; coming back near the bottom follows again. Sizes are
// read in ResizeObserver callbacks, after layout, so following costs no extra layout per token.
// A wheel turn or key press that scrolls up stops following at once, before the scroll it starts
// has moved anything: otherwise a token arriving first would pin the view back down and cancel
// that scroll (a smooth wheel scroll takes a few frames to move). A scroll down that reaches the
// bottom as it was when the person asked for it follows again, however much grew meanwhile; one
// that aimed past the bottom (a hard wheel turn, End) goes all the way and follows once it ends,
// even where the browser's scroll stopped short (it clamps to a height it has not caught up with).
import { useEffect, type RefObject } from 'react';

/** How far the view is from the bottom of the list, in px. */
const gapBelow = (list: HTMLElement): number => list.scrollHeight - list.scrollTop - list.clientHeight;

/** How close to the bottom counts as "at the bottom": a smooth scroll back down ends short by
 *  whatever arrived while it ran, so the margin is generous (a few lines). */
const nearBottom = (list: HTMLElement): boolean => gapBelow(list) <= Math.max(48, list.clientHeight * 0.15);

export function useFollowBottom(listRef: RefObject<HTMLElement | null>, rowCount: number): void {
  useEffect(() => {
    const list = listRef.current;
    if (!list || typeof ResizeObserver === 'undefined') return;
    let follow = true;
    let lastTop = list.scrollTop;
    /** Where our own last pin to the bottom left the view (its scroll event is not the person's). */
    let pinnedAt = -1;
    /** The list's height when the person last asked to scroll down: reaching that bottom follows. */
    let downTo = -1;
    /** The person's scroll now running aimed at or past the bottom. */
    let aimed = false;
    const onScroll = (): void => {
      const top = list.scrollTop;
      if (top === pinnedAt) {
        lastTop = top;
        return;
      }
      // Growing content never moves scrollTop and our own scrolling only goes down, so a move up is
      // the person's (unless the content shrank under a view pinned to the very bottom): stop
      // following until they come back down near the bottom.
      if (top < lastTop && gapBelow(list) > 2) {
        follow = false;
        downTo = -1;
        aimed = false;
      } else if (nearBottom(list) || (downTo > 0 && top > lastTop && top + list.clientHeight >= downTo - 2)) {
        // A scroll down aims at the bottom as it was when asked for; rows that grew while it ran
        // (a busy frame) leave it short of the bottom now, not short of where the person meant.
        follow = true;
        downTo = -1;
      }
      lastTop = top;
    };
    const onWheel = (e: WheelEvent): void => {
      if (e.deltaY < 0) {
        follow = false;
        aimed = false;
      } else if (e.deltaY > 0) {
        downTo = list.scrollHeight;
        // Wheel deltas come in pixels, lines or pages.
        const px = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaMode === 2 ? e.deltaY * list.clientHeight : e.deltaY;
        if (px >= gapBelow(list)) aimed = true;
      }
    };
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'PageUp' || e.key === 'ArrowUp' || e.key === 'Home' || (e.key === ' ' && e.shiftKey)) {
        follow = false;
        aimed = false;
      } else if (e.key === 'End') {
        follow = true;
        aimed = true;
      } else if (e.key === 'PageDown' || e.key === 'ArrowDown' || e.key === ' ') downTo = list.scrollHeight;
    };
    const onScrollEnd = (): void => {
      if (!aimed) return;
      aimed = false;
      follow = true;
      downTo = -1;
      pin();
    };
    const pin = (): void => {
      list.scrollTop = list.scrollHeight;
      pinnedAt = list.scrollTop;
      // Its scroll event may come merged with the person's next scroll: compare that with the pin.
      lastTop = pinnedAt;
    };
    const ro = new ResizeObserver(() => {
      if (follow) pin();
    });
    for (const row of Array.from(list.children)) ro.observe(row);
    list.addEventListener('scroll', onScroll, { passive: true });
    list.addEventListener('wheel', onWheel, { passive: true });
    list.addEventListener('keydown', onKey);
    list.addEventListener('scrollend', onScrollEnd);
    // A new row (a message just sent) brings the view back to the bottom.
    pin();
    return () => {
      ro.disconnect();
      list.removeEventListener('scroll', onScroll);
      list.removeEventListener('wheel', onWheel);
      list.removeEventListener('keydown', onKey);
      list.removeEventListener('scrollend', onScrollEnd);
    };
  }, [listRef, rowCount]);
}
