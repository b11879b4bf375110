// The agents list, windowed, for a team of hundreds or thousands of agents: only the rows in and
// near the viewport are in the page (the page scrolls as it always did; the list keeps the height of
// all its rows, measured as they are shown). Loaded only when a list is that long.
import { defaultRangeExtractor, useWindowVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { AgentRow, type RowsProps } from './AgentRow';

/** A row's height before it is measured (two lines of text and the padding). */
const ROW_ESTIMATE_PX = 64;
/** Rows kept beyond each edge of the window: Tab and Shift+Tab always find the next row already there. */
const OVERSCAN = 8;

/** Where the element starts in the page (its offset from the top of the document). */
function pageTop(el: HTMLElement): number {
  return el.getBoundingClientRect().top + window.scrollY;
}

/** The row that holds the focus stays in the page while it is scrolled away: focus is never lost to the body. */
export function WindowedAgentRows({ keys, teamLabel, now, lastHeardAt }: RowsProps) {
  const list = useRef<HTMLUListElement>(null);
  const [margin, setMargin] = useState(0);
  // What sits above the list (notices, the Add agent panel, a wrapped summary) moves it down the page.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const follow = (): void => setMargin(pageTop(el));
    follow();
    if (typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(follow);
    watch.observe(document.body);
    return () => watch.disconnect();
  }, []);
  const focused = useRef<number | null>(null);
  const range = useCallback((r: Range) => {
    const indexes = defaultRangeExtractor(r);
    const f = focused.current;
    return f === null || f >= r.count || indexes.includes(f) ? indexes : [...indexes, f].sort((a, b) => a - b);
  }, []);
  const v = useWindowVirtualizer({
    count: keys.length,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: OVERSCAN,
    scrollMargin: margin,
    getItemKey: (i) => keys[i] ?? i,
    rangeExtractor: range,
  });
  return (
    <ul
      ref={list}
      className="agents agents-windowed"
      aria-label={`${keys.length} agents, worst health first`}
      style={{ height: v.getTotalSize() }}
      onFocus={(e) => {
        const at = (e.target as HTMLElement).closest('li')?.dataset.index;
        focused.current = at === undefined ? null : Number(at);
      }}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) focused.current = null;
      }}
    >
      {v.getVirtualItems().map((item) => (
        <AgentRow
          key={item.key}
          agentKey={keys[item.index]!}
          index={item.index}
          count={keys.length}
          measure={v.measureElement}
          top={item.start - v.options.scrollMargin}
          teamLabel={teamLabel}
          now={now}
          lastHeardAt={lastHeardAt}
        />
      ))}
    </ul>
  );
}
