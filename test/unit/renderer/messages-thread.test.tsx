// @vitest-environment jsdom
// The open thread, windowed: a thread of 20,000 messages keeps a bounded number of rows in the DOM
// and opens at the newest; a new message keeps a view at the bottom pinned there, and scrolled up
// the view stays put and a "new messages" button leads back down; day separators stay; reaching the
// top loads the older page (messages.thread before the oldest) without moving the rows in view.
// jsdom has no layout: every row is 40 px tall, the scroller 600 px, and its scroll height is the
// spacers' plus the rows'.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageDTO, MessageThreadDTO, Result } from '../../../src-shared/contract';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { afterPaint, agent, flush, mount, setup, team } from './fixtures';

const ROW = 40;
const VIEW = 600;
const CONTACT = '+15550107777';
const T0 = Date.UTC(2026, 0, 1, 12, 0);

const msg = (i: number, over: Partial<MessageDTO> = {}): MessageDTO => ({
  key: `m${i}`,
  teamId: 't1',
  agentId: 'a1',
  contact: CONTACT,
  // One message a minute: 1,440 a day.
  at: T0 + i * 60_000,
  direction: i % 3 === 0 ? 'out' : 'in',
  fromMe: false,
  type: 'text',
  text: `message ${i}`,
  ...over,
});

/** messages.thread over a thread of `n` messages: the `limit` latest before `before`. */
function threadOf(all: MessageDTO[]) {
  return (args: unknown): Result<MessageThreadDTO> => {
    const { before, limit = 100 } = args as { before?: number; limit?: number };
    const upTo = before === undefined ? all.length : all.findIndex((m) => m.at >= before);
    const end = upTo < 0 ? all.length : upTo;
    const from = Math.max(0, end - limit);
    return { ok: true, value: { messages: all.slice(from, end), more: from > 0, name: 'Dana' } };
  };
}

const saved = new Map<string, PropertyDescriptor | undefined>();
const tops = new WeakMap<Element, number>();
const isScroller = (el: Element) => el.classList.contains('messages-scroller');
function scrollHeightOf(el: Element): number {
  const [top, ol, bottom] = Array.from(el.children) as HTMLElement[];
  if (!ol) return 0;
  return (parseFloat(top!.style.height) || 0) + (parseFloat(bottom!.style.height) || 0) + ol.children.length * ROW;
}

beforeEach(() => {
  const p = HTMLElement.prototype;
  for (const k of ['offsetHeight', 'clientHeight', 'scrollHeight', 'scrollTop'])
    saved.set(k, Object.getOwnPropertyDescriptor(p, k));
  Object.defineProperty(p, 'offsetHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.tagName === 'LI' ? ROW : 0;
    },
  });
  Object.defineProperty(p, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return isScroller(this) ? VIEW : 0;
    },
  });
  Object.defineProperty(p, 'scrollHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return isScroller(this) ? scrollHeightOf(this) : 0;
    },
  });
  Object.defineProperty(p, 'scrollTop', {
    configurable: true,
    // Clamped when read too, as a browser does once the content shrinks.
    get(this: HTMLElement) {
      return Math.max(0, Math.min(tops.get(this) ?? 0, this.scrollHeight - this.clientHeight));
    },
    set(this: HTMLElement, v: number) {
      tops.set(this, Math.max(0, Math.min(v, this.scrollHeight - this.clientHeight)));
    },
  });
});
afterEach(() => {
  cleanup();
  const p = HTMLElement.prototype;
  for (const [k, d] of saved) {
    if (d) Object.defineProperty(p, k, d);
    else delete (p as unknown as Record<string, unknown>)[k];
  }
});

async function open(n: number | MessageDTO[], answer?: () => Result<MessageThreadDTO>) {
  const t = setup({
    'teams.list': { ok: true, value: [team({ agentIds: ['a1'] })] },
    'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    'messages.thread': answer ?? threadOf(typeof n === 'number' ? Array.from({ length: n }, (_, i) => msg(i)) : n),
  });
  connectStore(t.store, t.api);
  mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={CONTACT} />);
  await flush();
  // The rows above the view and the measured heights come once the first paint is on screen.
  await afterPaint();
  await afterPaint();
  const scroller = screen.getByRole('region', { name: 'Messages with Dana' });
  return { t, scroller, bubbles: () => scroller.querySelectorAll('.messages-bubble') };
}

/** The person scrolls the view to `top`. */
function scrollTo(el: HTMLElement, top: number) {
  act(() => {
    el.scrollTop = top;
    fireEvent.scroll(el);
  });
}

const atBottom = (el: HTMLElement) => el.scrollTop === el.scrollHeight - el.clientHeight;
const texts = (el: HTMLElement) => Array.from(el.querySelectorAll('.messages-text')).map((p) => p.textContent);

describe('the thread, windowed', () => {
  it('a thread of 20,000 messages, all loaded, keeps a bounded DOM, opened at the newest; so does its top', async () => {
    // The service answers the whole thread at once: the store holds 20,000 messages.
    const all = Array.from({ length: 20_000 }, (_, i) => msg(i));
    const { t, scroller, bubbles } = await open(all, () => ({
      ok: true,
      value: { messages: all, more: false, name: 'Dana' },
    }));
    expect(t.store.getState().threads[`t1/a1/${CONTACT}`]!.messages).toHaveLength(20_000);
    expect(bubbles().length).toBeGreaterThan(0);
    expect(bubbles().length).toBeLessThanOrEqual(300);
    expect(texts(scroller).at(-1)).toBe('message 19999');
    expect(atBottom(scroller)).toBe(true);
    scrollTo(scroller, 0);
    expect(texts(scroller)[0]).toBe('message 0');
    expect(bubbles().length).toBeLessThanOrEqual(300);
    scrollTo(scroller, scroller.scrollHeight / 2);
    expect(bubbles().length).toBeLessThanOrEqual(300);
    expect(texts(scroller)).not.toContain('message 0');
    expect(texts(scroller)).not.toContain('message 19999');
  });

  it('keeps day separators: one before the first message of each day', async () => {
    const DAY = 24 * 3600_000;
    const three = Array.from({ length: 15 }, (_, i) => msg(i, { at: T0 + Math.floor(i / 5) * DAY + (i % 5) * 60_000 }));
    const { scroller } = await open(three);
    const rows = Array.from(scroller.querySelectorAll('ol > li'));
    const days = rows.flatMap((li, i) => (li.classList.contains('messages-day') ? [i] : []));
    expect(days).toHaveLength(3);
    expect(days.map((i) => rows[i + 1]!.textContent)).toEqual([
      expect.stringContaining('message 0'),
      expect.stringContaining('message 5'),
      expect.stringContaining('message 10'),
    ]);
    expect(rows[days[1]!]!.textContent).toBe(
      new Date(T0 + DAY).toLocaleDateString(undefined, {
        weekday: 'long',
        year: 'numeric',
        month: 'long',
        day: 'numeric',
      }),
    );
  });

  it('a new message at the bottom keeps the view pinned to it', async () => {
    const { t, scroller } = await open(500);
    expect(atBottom(scroller)).toBe(true);
    act(() => t.emit('messages.new', { message: msg(500, { text: 'just now' }) }));
    expect(texts(scroller).at(-1)).toBe('just now');
    expect(atBottom(scroller)).toBe(true);
    // msg(500) is inbound: said once, politely.
    expect(screen.getByRole('status').textContent).toBe('A new message arrived.');
    expect(screen.queryByRole('button', { name: /new message/ })).toBeNull();
  });

  it('scrolled up, a new message leaves the view where it is and shows a "new messages" button', async () => {
    const { t, scroller } = await open(500);
    scrollTo(scroller, scroller.scrollTop - 1_000);
    // (Rows measured on the way keep the row at the top in place: read where the view settled.)
    const top = scroller.scrollTop;
    const row = rowAtTop(scroller);
    const shown = texts(scroller);
    act(() => t.emit('messages.new', { message: msg(500, { text: 'first new' }) }));
    act(() => t.emit('messages.new', { message: msg(501, { text: 'second new' }) }));
    expect(scroller.scrollTop).toBe(top);
    expect(rowAtTop(scroller)).toBe(row);
    expect(texts(scroller)).toEqual(shown);
    const button = screen.getByRole('button', { name: '2 new messages' });
    fireEvent.click(button);
    expect(atBottom(scroller)).toBe(true);
    expect(texts(scroller).at(-1)).toBe('second new');
    expect(screen.queryByRole('button', { name: /new message/ })).toBeNull();
  });

  it('reaching the top loads the older page before the oldest message, and the rows in view stay put', async () => {
    const { t, scroller } = await open(1_000);
    const before = t.calls.filter((c) => c.name === 'messages.thread');
    expect(before).toHaveLength(1);
    scrollTo(scroller, 200);
    const topRow = rowAtTop(scroller);
    await flush();
    const loads = t.calls.filter((c) => c.name === 'messages.thread').map((c) => c.args);
    expect(loads).toEqual([
      { teamId: 't1', agentId: 'a1', phone: CONTACT, limit: 50 },
      { teamId: 't1', agentId: 'a1', phone: CONTACT, limit: 50, before: msg(950).at + 1 },
    ]);
    // 50 older rows above: the view moved down by their height, the same row at its top.
    expect(scroller.scrollTop).toBeGreaterThan(200 + 45 * ROW);
    expect(rowAtTop(scroller)).toBe(topRow);
    expect(topRow).toMatch(/message 9\d\d/);
  });

  it('a message of the same millisecond as the oldest loaded one, beyond the page edge, is not skipped', async () => {
    const all = Array.from({ length: 150 }, (_, i) => msg(i, i === 49 ? { at: msg(50).at } : {}));
    const { t, scroller } = await open(all);
    scrollTo(scroller, 0);
    await flush();
    const keys = t.store.getState().threads[`t1/a1/${CONTACT}`]!.messages.map((m) => m.key);
    expect(keys).toEqual(all.map((m) => m.key));
  });

  it('a burst of new messages reloads the inbox once, then once more after the burst, not once per message', async () => {
    const { t } = await open(100);
    // (Each reload of the agent's inbox also asks for every agent's unread count: one call of each.)
    const inboxCalls = () =>
      t.calls.filter((c) => c.name === 'messages.contacts' && (c.args as { agentId?: string }).agentId === 'a1').length;
    // The store's own timer runs on fake time; the fake clock (t.now) moves with it.
    vi.useFakeTimers();
    try {
      const tick = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
      // What opening the thread asked for (marked read) is done; a second later, the burst.
      await tick(300);
      t.now.t += 1_000;
      const before = inboxCalls();
      for (let i = 0; i < 20; i++) act(() => t.emit('messages.new', { message: msg(100 + i) }));
      await tick(0);
      expect(inboxCalls() - before).toBe(1);
      t.now.t += 300;
      await tick(300);
      expect(inboxCalls() - before).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the scroller takes keyboard focus and is named; the list is an ordered list', async () => {
    const { scroller } = await open(50);
    expect(scroller.tabIndex).toBe(0);
    expect(within(scroller).getByRole('list', { name: 'Messages, oldest first' }).tagName).toBe('OL');
  });
});

/** The text of the message row at the top of the view. */
function rowAtTop(scroller: HTMLElement): string | null {
  const ol = scroller.querySelector('ol')!;
  const pad = parseFloat((ol.previousElementSibling as HTMLElement).style.height) || 0;
  const i = Math.floor((scroller.scrollTop - pad) / ROW);
  return ol.children[i]?.textContent ?? null;
}
