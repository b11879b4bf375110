// The messages of an open thread, windowed: however long the thread, only the rows in and near the
// view are in the DOM (at most MAX_ROWS, day separators included), the rest stand in as two spacers
// above and below the list, sized from each row's measured height (until a row is measured, the
// average of its kind). The spacers are the list's siblings, not its padding: the browser's own
// scroll anchoring then keeps the rows in view in place as rows above them are measured, even during
// a smooth scroll (setting scrollTop would cancel it); where it does not apply (at the very top, a
// page of older messages loaded), the anchor row is put back by hand.
// The view opens at the bottom (the newest message) and stays pinned there while messages arrive;
// scrolled up, it stays where it is (the rows in view keep their place whatever is measured or
// loaded above them) and a "N new messages" button leads back down. Reaching the top loads the
// older page. The scroller takes keyboard focus, so arrows, Page Up/Down, Home and End scroll it.
import { memo, startTransition, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { MessageDTO } from '../../../../src-shared/contract';
import { afterNextPaint } from '../../store/frame-batch';
import { Bubble } from './Bubble';
import { dayOf } from './format';
import './thread.css';

type Row = { kind: 'day'; key: string; at: number } | { kind: 'message'; key: string; m: MessageDTO };

/** Rows in the DOM at most (the view and its overscan need far fewer). */
const MAX_ROWS = 120;
/** Rows kept rendered above and below the view, in px. */
const OVERSCAN_PX = 600;
/** Heights used for a row not yet measured until some of its kind are (then their average). */
const ESTIMATE = { day: 36, message: 64 } as const;
/** How close to the bottom counts as at the bottom, in px. */
const AT_BOTTOM_PX = 24;
/** How close to the top loads the older page, in px. */
const LOAD_OLDER_PX = 400;

/** The thread's rows: a day separator before the first message of each (local) day, then the messages. */
function rowsOf(messages: MessageDTO[]): Row[] {
  const rows: Row[] = [];
  let dayStart = 0;
  let dayEnd = -1;
  for (const m of messages) {
    if (m.at < dayStart || m.at >= dayEnd) {
      const d = new Date(m.at);
      dayStart = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
      dayEnd = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
      rows.push({ kind: 'day', key: `day:${dayStart}`, at: m.at });
    }
    rows.push({ kind: 'message', key: m.key, m });
  }
  return rows;
}

/** The first row whose bottom is below y (offsets has rows + 1 entries, offsets[0] = 0). */
function rowAt(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1]! <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Props {
  messages: MessageDTO[];
  /** Older messages can be loaded. */
  more: boolean;
  loadOlder(): Promise<void>;
  /** Names the list for assistive technology ("Messages with Dana"). */
  label: string;
}

/** Memoised: the inbox around it changes with every message of any contact; this list only with its own. */
export const ThreadList = memo(function ThreadList({ messages, more, loadOlder, label }: Props) {
  const rows = useMemo(() => rowsOf(messages), [messages]);
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);
  /** Measured heights by row key (with the list's gap), kept across renders and loads. */
  const heights = useRef(new Map<string, number>());
  const [measured, setMeasured] = useState(0);
  /** Laid out once: from then on the rows above the view are rendered too (its first paint needs the view's only). */
  const [opened, setOpened] = useState(false);
  // Until the scroller is measured, the window's height stands for it: the first render already
  // holds every row the view can show (one measuring pass fewer on open).
  const [view, setView] = useState(() => ({ top: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight }));
  /** The view follows the newest message. */
  const pinned = useRef(true);
  /** Scrolled up: the row at the top of the view and how far into it the view starts. */
  const anchor = useRef<{ key: string; delta: number } | null>(null);
  const [unseen, setUnseen] = useState(0);
  /** Said to assistive technology when messages from the contact arrive (the rows themselves come and go). */
  const [said, setSaid] = useState('');
  const gap = useRef(0);

  const offsets = useMemo(() => {
    const o = new Float64Array(rows.length + 1);
    const h = heights.current;
    const sum = { day: 0, message: 0 };
    const count = { day: 0, message: 0 };
    for (const r of rows) {
      const x = h.get(r.key);
      if (x !== undefined) {
        sum[r.kind] += x;
        count[r.kind]++;
      }
    }
    const guess = {
      day: count.day ? sum.day / count.day : ESTIMATE.day,
      message: count.message ? sum.message / count.message : ESTIMATE.message,
    };
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      o[i + 1] = o[i]! + (h.get(r.key) ?? guess[r.kind]);
    }
    return o;
    // `measured` changes whenever heights does.
  }, [rows, measured]);
  const total = offsets[rows.length]!;

  /** The index of a row by key, searched near `near` first (the window), then over every row. */
  const indexOf = (key: string, near: number): number => {
    for (let i = Math.max(0, near - 50); i < Math.min(rows.length, near + MAX_ROWS + 50); i++)
      if (rows[i]!.key === key) return i;
    return rows.findIndex((r) => r.key === key);
  };
  // Where the view's top is: the bottom of the list while pinned; scrolled up, where the anchor row
  // is now (rows measured or loaded above it have moved it), else where the scroller says.
  const lastStart = useRef(0);
  let viewTop = view.top;
  let anchorAt = -1;
  if (pinned.current) viewTop = Math.max(0, total - view.height);
  else if (anchor.current) {
    anchorAt = indexOf(anchor.current.key, lastStart.current);
    if (anchorAt >= 0) viewTop = offsets[anchorAt]! + anchor.current.delta;
  }
  // The window: the rows in view and OVERSCAN_PX around it (above it once opened), MAX_ROWS at most.
  let start = rowAt(offsets, viewTop - (opened ? OVERSCAN_PX : 0));
  let end = Math.min(rows.length, rowAt(offsets, viewTop + view.height + OVERSCAN_PX) + 1);
  if (end - start > MAX_ROWS) {
    if (pinned.current) start = end - MAX_ROWS;
    else end = start + MAX_ROWS;
  }
  lastStart.current = start;
  const shown = rows.slice(start, end);

  /** A render after the next paint is asked for: the rows above the view, the measured heights followed. */
  const openAsked = useRef(false);
  const followAsked = useRef(false);
  /** A render with the measured heights and the scroller's height. */
  const follow = useCallback(() => {
    setMeasured((n) => n + 1);
    const el = scroller.current;
    if (!el) return;
    const height = el.clientHeight;
    setView((v) => (v.height === height ? v : { top: el.scrollTop, height }));
  }, []);
  /** The same once the next paint is on screen (one for every ask until then). */
  const followAfterPaint = useCallback(() => {
    if (followAsked.current) return;
    followAsked.current = true;
    afterNextPaint(() => {
      followAsked.current = false;
      startTransition(follow);
    });
  }, [follow]);

  /** Where the view's top was at the last scroll event (or our own last scroll). */
  const lastTop = useRef(0);
  /** Notes where the view is: pinned to the bottom, or the row at its top. A move up is never a
   *  move to the bottom (a smooth scroll up starts a few px from it). */
  const noteView = () => {
    const el = scroller.current;
    if (!el) return;
    const top = el.scrollTop;
    const below = el.scrollHeight - top - el.clientHeight;
    const up = top < lastTop.current - 0.5 && below > 1;
    lastTop.current = top;
    if (!up && below <= AT_BOTTOM_PX) {
      const was = pinned.current;
      pinned.current = true;
      anchor.current = null;
      setUnseen(0);
      // Still at the bottom (our own scroll there as the thread opened, a row measured): the window
      // follows from the rows' heights and the view's height only, once the paint is on screen.
      if (was) {
        if (view.height !== el.clientHeight) followAfterPaint();
        return;
      }
    } else {
      pinned.current = false;
      const i = rowAt(offsets, top);
      const r = rows[i];
      anchor.current = r ? { key: r.key, delta: top - offsets[i]! } : null;
    }
    setView((v) => (v.top === top && v.height === el.clientHeight ? v : { top, height: el.clientHeight }));
  };

  /** Each row element's key, for the resize observer. */
  const keyOf = useRef(new WeakMap<Element, string>());
  const observer = useRef<ResizeObserver | null>(null);

  // After each render, before paint: measure the rows in the DOM, then put the view back where it
  // belongs (the bottom, or the anchor row where it was).
  useLayoutEffect(() => {
    const el = scroller.current;
    const ol = list.current;
    if (!el || !ol) return;
    // The rows above the view, once this first paint is on screen (not before it: the scheduler's task
    // for a transition would run before the frame).
    if (!opened && !openAsked.current) {
      openAsked.current = true;
      afterNextPaint(() => startTransition(() => setOpened(true)));
    }
    if (gap.current === 0) gap.current = parseFloat(getComputedStyle(ol).rowGap) || 0;
    let changed = false;
    const items = ol.children;
    for (let i = 0; i < items.length && i < shown.length; i++) {
      const item = items[i]!;
      const key = shown[i]!.key;
      // A row already measured in this element is watched by the resize observer: reading its
      // height again would force a layout on every render.
      if (keyOf.current.get(item) === key && heights.current.has(key)) continue;
      keyOf.current.set(item, key);
      observer.current?.observe(item);
      const h = (item as HTMLElement).offsetHeight;
      // 0: not laid out (hidden): keep what is known.
      if (h > 0 && heights.current.get(key) !== h + gap.current) {
        heights.current.set(key, h + gap.current);
        changed = true;
      }
    }
    if (changed) {
      if (!pinned.current) return follow();
      // At the bottom, the newest rows are in the DOM already: the view goes there before this paint and
      // the window follows the measured heights once it is on screen (the spacer above the view is all
      // that changes).
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
      followAfterPaint();
      return;
    }
    if (pinned.current) {
      if (el.scrollHeight - el.scrollTop - el.clientHeight > 1) el.scrollTop = el.scrollHeight;
    } else if (anchor.current && anchorAt >= 0) {
      const want = offsets[anchorAt]! + anchor.current.delta;
      if (Math.abs(el.scrollTop - want) > 1) el.scrollTop = want;
    }
    lastTop.current = el.scrollTop;
    // Pinned, the view's top follows from the rows' heights: only its height asks for another render
    // before this paint (the scroll event that follows notes the top).
    if (view.height !== el.clientHeight || (!pinned.current && view.top !== el.scrollTop))
      setView({ top: el.scrollTop, height: el.clientHeight });
  });

  // Rows that change size later (a picture loaded, a narrower window), and the scroller's own size.
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    // A row that changed size re-renders the window now; the scroller's own size (its first report
    // included, as the thread opens) once the paint is on screen: the rows around the view cover it.
    const ro = new ResizeObserver((entries) => {
      let changed = false;
      let resized = false;
      for (const e of entries) {
        if (e.target === el) {
          resized = true;
          continue;
        }
        const key = keyOf.current.get(e.target);
        const h = (e.target as HTMLElement).offsetHeight;
        if (!e.target.isConnected) ro.unobserve(e.target);
        else if (key !== undefined && h > 0 && heights.current.get(key) !== h + gap.current) {
          heights.current.set(key, h + gap.current);
          changed = true;
        }
      }
      if (changed) setMeasured((n) => n + 1);
      else if (resized) followAfterPaint();
    });
    observer.current = ro;
    ro.observe(el);
    for (const item of Array.from(list.current?.children ?? [])) ro.observe(item);
    return () => {
      ro.disconnect();
      observer.current = null;
    };
  }, [followAfterPaint]);

  // Messages added at the end: pinned, the view follows (layout effect above); scrolled up, they are
  // counted for the "new messages" button. A message sent from here brings the view down.
  const last = useRef<string | undefined>(undefined);
  useEffect(() => {
    const prev = last.current;
    const lastKey = messages[messages.length - 1]?.key;
    last.current = lastKey;
    if (prev === undefined || lastKey === prev) return;
    let from = messages.length - 1;
    while (from >= 0 && messages[from]!.key !== prev) from--;
    if (from < 0) return;
    const added = messages.slice(from + 1);
    const inbound = added.filter((m) => m.direction === 'in').length;
    if (inbound > 0) setSaid(inbound === 1 ? 'A new message arrived.' : `${inbound} new messages arrived.`);
    if (added.some((m) => m.direction === 'out' && m.via === 'messages')) {
      pinned.current = true;
      anchor.current = null;
      setUnseen(0);
      setMeasured((n) => n + 1);
    } else if (!pinned.current) setUnseen((n) => n + added.length);
  }, [messages]);

  // Near the top (or everything fits in the view) with older messages to load: load the next page,
  // one at a time.
  // A load that brought nothing (it failed) is not tried again from the same oldest message.
  const [loading, setLoading] = useState(false);
  const triedFrom = useRef<string | null>(null);
  const nearTop = (!pinned.current && viewTop <= LOAD_OLDER_PX) || (view.height > 0 && total <= view.height);
  const oldest = messages[0]?.key ?? null;
  useEffect(() => {
    if (!more || loading || !nearTop || triedFrom.current === oldest) return;
    triedFrom.current = oldest;
    setLoading(true);
    void loadOlder().finally(() => setLoading(false));
  }, [more, loading, nearTop, oldest, loadOlder]);

  // A wheel turn or a key press up leaves the bottom at once, before its scroll has moved anything:
  // a message arriving meanwhile must not pull the view back down.
  const leaveBottom = () => {
    const el = scroller.current;
    if (!el || !pinned.current) return;
    pinned.current = false;
    const i = rowAt(offsets, el.scrollTop);
    const r = rows[i];
    anchor.current = r ? { key: r.key, delta: el.scrollTop - offsets[i]! } : null;
  };

  const toBottom = () => {
    const el = scroller.current;
    pinned.current = true;
    anchor.current = null;
    setUnseen(0);
    if (el) {
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
      el.focus();
    }
    setMeasured((n) => n + 1);
  };

  return (
    <div className="messages-window">
      {loading && <p className="messages-older muted">Loading older messages…</p>}
      <div
        className="messages-scroller"
        ref={scroller}
        tabIndex={0}
        role="region"
        aria-label={label}
        onScroll={noteView}
        onWheel={(e) => {
          if (e.deltaY < 0) leaveBottom();
        }}
        onKeyDown={(e) => {
          if (e.key === 'PageUp' || e.key === 'ArrowUp' || e.key === 'Home' || (e.key === ' ' && e.shiftKey))
            leaveBottom();
        }}
      >
        <div className="messages-spacer" aria-hidden="true" style={{ height: offsets[start] }} />
        <ol className="messages-list" ref={list} aria-label="Messages, oldest first">
          {shown.map((r) =>
            r.kind === 'day' ? (
              <li key={r.key} className="messages-day muted">
                {dayOf(r.at)}
              </li>
            ) : (
              <Bubble key={r.key} m={r.m} />
            ),
          )}
        </ol>
        <div className="messages-spacer" aria-hidden="true" style={{ height: total - offsets[end]! }} />
      </div>
      <p className="sr-only" role="status">
        {said}
      </p>
      {unseen > 0 && (
        <button type="button" className="messages-unseen" onClick={toBottom}>
          {unseen} new {unseen === 1 ? 'message' : 'messages'} <span aria-hidden="true">↓</span>
        </button>
      )}
    </div>
  );
});
