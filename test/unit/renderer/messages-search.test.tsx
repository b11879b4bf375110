// @vitest-environment jsdom
// The Messages screen's search over every conversation, export and deletion of a contact's data, over
// a fake Api: the hits' ranges become <mark> around text nodes (markup in a message stays text);
// the search asks messages.search for every agent, debounced, and lists contacts and messages with
// links to their conversations; Export saves messages.export's content; "Everything of …" asks, then
// deletes through messages.deleteContact.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MessageDTO, MessageSearchDTO, Result } from '../../../src-shared/contract';
import { Highlight } from '../../../src-renderer/src/features/messages/Highlight';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

const AT = Date.UTC(2026, 10, 27, 9, 30);

const msg = (over: Partial<MessageDTO>): MessageDTO => ({
  key: 'k1',
  teamId: 't1',
  agentId: 'a1',
  contact: '+15550107777',
  at: AT,
  direction: 'in',
  fromMe: false,
  type: 'text',
  text: 'hi',
  ...over,
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Highlight', () => {
  it('marks each range, and the text nodes joined give back the text', () => {
    const { container } = render(
      <Highlight
        text="Do you open on Sundays? Sundays!"
        ranges={[
          [15, 22],
          [24, 31],
        ]}
      />,
    );
    expect([...container.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['Sundays', 'Sundays']);
    expect(container.textContent).toBe('Do you open on Sundays? Sundays!');
  });

  it('never turns text into markup: tags in a message stay text, no element is made from them', () => {
    const evil = '<img src=x onerror=alert(1)><b>refund</b>';
    const at = evil.indexOf('refund');
    const { container } = render(<Highlight text={evil} ranges={[[at, at + 6]]} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.querySelectorAll('mark')).toHaveLength(1);
    expect(container.querySelector('mark')!.textContent).toBe('refund');
    expect(container.querySelector('mark')!.children).toHaveLength(0);
    expect(container.textContent).toBe(evil);
  });

  it('clamps, orders and merges ranges that are out of the text, unordered or overlapping', () => {
    const parts = (text: string, ranges: Array<[number, number]>) =>
      [...render(<Highlight text={text} ranges={ranges} />).container.childNodes].map((n) =>
        n.nodeName === 'MARK' ? `[${n.textContent}]` : n.textContent,
      );
    expect(
      parts('abcdefgh', [
        [6, 99],
        [1, 3],
        [2, 4],
        [-5, 0],
        [5, 5],
      ]),
    ).toEqual(['a', '[bcd]', 'ef', '[gh]']);
    expect(parts('abc', [])).toEqual(['abc']);
  });

  it('a long text starts shortly before its first match, cut at a word, with an ellipsis', () => {
    const text = `${'word '.repeat(40)}the refund is here`;
    const at = text.indexOf('refund');
    const { container } = render(<Highlight text={text} ranges={[[at, at + 6]]} lead />);
    expect(container.querySelector('mark')!.textContent).toBe('refund');
    expect(container.textContent!.startsWith('…word ')).toBe(true);
    expect(container.textContent!.length).toBeLessThan(text.length);
    expect(container.textContent!.endsWith('the refund is here')).toBe(true);
  });
});

const FOUND: MessageSearchDTO = {
  contacts: [
    {
      contact: {
        teamId: 't1',
        agentId: 'a1',
        contact: '+15550107777',
        name: 'Dana',
        lastAt: AT,
        last: msg({ text: 'last words' }),
        unread: 0,
        count: 2,
      },
      field: 'contact',
      ranges: [[1, 12]],
    },
  ],
  messages: [
    {
      message: msg({ key: 'm9', agentId: 'a2', contact: '+15550108888', text: 'Do you open on <b>Sundays</b>?' }),
      field: 'text',
      ranges: [[18, 25]],
    },
  ],
};

function open(answers: Parameters<typeof setup>[0] = {}, contact: string | null = null) {
  const t = setup({
    'teams.list': { ok: true, value: [team({ agentIds: ['a1', 'a2'] })] },
    'agents.list': { ok: true, value: [agent('a1', 'connected'), agent('a2', 'connected')] },
    'messages.thread': { ok: true, value: { messages: [msg({ key: 'm1' })], more: false } },
    ...answers,
  });
  connectStore(t.store, t.api);
  mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={contact} />);
  return t;
}

describe('Messages search over every conversation', () => {
  it('asks messages.search once typing pauses, for every agent, and lists the hits marked, each a link to its conversation', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const t = open({ 'messages.search': { ok: true, value: FOUND } });
    await flush();
    const box = screen.getByRole('searchbox', { name: 'Search' });
    fireEvent.change(box, { target: { value: '+1 555' } });
    fireEvent.change(box, { target: { value: '+1 555 010 7777' } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(250);
    });
    await flush();
    // One search, for the last words typed, whichever agent is picked.
    expect(t.calls.filter((c) => c.name === 'messages.search').map((c) => c.args)).toEqual([
      { query: '+1 555 010 7777' },
    ]);
    const contacts = screen.getByRole('list', { name: 'Contacts found' });
    const dana = within(contacts).getByRole('link');
    expect(dana.getAttribute('href')).toBe('#/messages?team=t1&agent=a1&with=%2B15550107777');
    expect(dana.querySelector('mark')!.textContent).toBe('15550107777');
    const messages = screen.getByRole('list', { name: 'Messages found' });
    const hit = within(messages).getByRole('link');
    expect(hit.getAttribute('href')).toBe('#/messages?team=t1&agent=a2&with=%2B15550108888');
    expect(hit.querySelector('mark')!.textContent).toBe('Sundays');
    expect(hit.querySelector('b')).toBeNull();
    expect(hit.textContent).toContain('Do you open on <b>Sundays</b>?');
    // The agent it was written to is named.
    expect(hit.querySelector('.messages-contact-agent')!.textContent).toBe(agent('a2', 'connected').label);
    // Cleared: the inbox again.
    fireEvent.change(box, { target: { value: '' } });
    await flush();
    expect(screen.queryByRole('list', { name: 'Messages found' })).toBeNull();
  });

  it('says so when nothing matches', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const t = open({ 'messages.search': { ok: true, value: { contacts: [], messages: [] } } });
    await flush();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search' }), { target: { value: 'nothing' } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(250);
    });
    await flush();
    expect(t.calls.some((c) => c.name === 'messages.search')).toBe(true);
    expect(screen.getByText('No conversation matches.')).toBeTruthy();
  });
});

describe('Messages export and deletion of a contact', () => {
  it('Export saves the content messages.export answers, in the format chosen', async () => {
    const saved: Blob[] = [];
    const create = vi.fn((b: Blob) => {
      saved.push(b);
      return 'blob:x';
    });
    Object.assign(URL, { createObjectURL: create, revokeObjectURL: vi.fn() });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    const exported: Result<unknown> = {
      ok: true,
      value: { filename: 'dana.csv', mimeType: 'text/csv', content: 'at,who,text\r\n1,Dana,hi\r\n', count: 1 },
    };
    const t = open({ 'messages.export': exported }, '+15550107777');
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'CSV (.csv)' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.export').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', phone: '+15550107777', format: 'csv' },
    ]);
    expect(clicked).toEqual(['dana.csv']);
    expect(saved[0]!.type).toBe('text/csv');
    expect(await saved[0]!.text()).toBe('at,who,text\r\n1,Dana,hi\r\n');
    click.mockRestore();
  });

  it('"Everything of …" asks, saying it is removed for good, then deletes through messages.deleteContact', async () => {
    const t = open({ 'messages.deleteContact': { ok: true, value: { removed: 3 } } }, '+15550107777');
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(screen.getByRole('group', { name: /removed for good from this computer/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Everything of +15550107777…' }));
    const ask = screen.getByRole('group', { name: /Delete everything of \+15550107777/ });
    expect(ask.textContent).toMatch(/every agent/);
    expect(ask.textContent).toMatch(/removed\s+for good from this computer/);
    expect(t.calls.some((c) => c.name === 'messages.deleteContact')).toBe(false);
    fireEvent.click(within(ask).getByRole('button', { name: 'Delete everything of +15550107777' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.deleteContact').map((c) => c.args)).toEqual([
      { phone: '+15550107777' },
    ]);
    expect(window.location.hash).toBe('#/messages?team=t1&agent=a1');
  });
});
