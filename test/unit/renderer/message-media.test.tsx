// @vitest-environment jsdom
// A message's picture or document in its bubble, over a fake Api: a picture is asked for only once
// its bubble is on screen, drawn with its alt text and opened larger (Escape closes); a file the
// service no longer has is one plain sentence; a document shows its name and size and saves through
// messages.saveMedia (a download in the browser); a file sent by link is named with the link, never
// fetched.
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageDTO, Result } from '../../../src-shared/contract';
import { MessageMedia } from '../../../src-renderer/src/features/messages/MessageMedia';
import { flush, mount, setup } from './fixtures';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

const msg = (over: Partial<MessageDTO>): MessageDTO => ({
  key: 'wamid_1',
  teamId: 't1',
  agentId: 'a1',
  contact: '+15550107777',
  at: 0,
  direction: 'in',
  fromMe: false,
  type: 'image',
  text: 'the receipt',
  media: { filename: 'receipt.png', mimeType: 'image/png' },
  messageId: 'wamid_1',
  ...over,
});

const EXPIRED = (message: string): Result<never> => ({
  ok: false,
  error: { kind: 'not-found', code: 'MEDIA_EXPIRED', message },
});

function show(m: MessageDTO, answers: Parameters<typeof setup>[0] = {}) {
  const t = setup(answers);
  mount(t.store, <MessageMedia m={m} />);
  return t;
}

afterEach(() => cleanup());

describe('MessageMedia: a picture', () => {
  let observers: Array<{ cb: IntersectionObserverCallback; el: Element | null }>;
  beforeEach(() => {
    observers = [];
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        private readonly o: { cb: IntersectionObserverCallback; el: Element | null };
        constructor(cb: IntersectionObserverCallback) {
          this.o = { cb, el: null };
          observers.push(this.o);
        }
        observe(el: Element) {
          this.o.el = el;
        }
        disconnect() {}
      },
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  const comeOnScreen = () =>
    act(() => {
      for (const o of observers)
        o.cb([{ isIntersecting: true, target: o.el! } as IntersectionObserverEntry], {} as IntersectionObserver);
    });

  it('is asked for once its bubble is on screen, drawn with alt text, and opened larger', async () => {
    const t = show(msg({}), {
      'messages.media': { ok: true, value: { filename: 'receipt.png', mimeType: 'image/png', bytes: 8, dataUrl: PNG } },
    });
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.media')).toEqual([]);
    expect(screen.getByText('Loading the picture…')).toBeTruthy();
    comeOnScreen();
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.media').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', messageKey: 'wamid_1' },
    ]);
    const img = screen.getByRole('img', { name: 'Picture: the receipt' });
    expect(img.getAttribute('src')).toBe(PNG);
    fireEvent.click(screen.getByRole('button', { name: 'Open larger: Picture: the receipt' }));
    const dialog = screen.getByRole('dialog', { name: 'The picture, larger' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    expect(dialog.querySelector('img')!.getAttribute('src')).toBe(PNG);
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('a picture the service no longer has is one plain sentence, not an error', async () => {
    show(msg({}), { 'messages.media': EXPIRED('This picture is no longer available from the service.') });
    comeOnScreen();
    await flush();
    expect(screen.getByText('This picture is no longer available from the service.')).toBeTruthy();
    expect(screen.queryByRole('img')).toBeNull();
    expect(screen.queryByText(/could not be shown/)).toBeNull();
  });

  it('another failure says why and offers to try again', async () => {
    let answer: Result<unknown> = {
      ok: false,
      error: { kind: 'network-error', code: 'NETWORK', message: 'The service could not be reached.' },
    };
    const t = show(msg({}), { 'messages.media': () => answer });
    comeOnScreen();
    await flush();
    expect(screen.getByText(/The picture could not be shown/)).toBeTruthy();
    answer = { ok: true, value: { filename: 'receipt.png', mimeType: 'image/png', bytes: 8, dataUrl: PNG } };
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await flush();
    expect(screen.getByRole('img', { name: 'Picture: the receipt' })).toBeTruthy();
    expect(t.calls.filter((c) => c.name === 'messages.media')).toHaveLength(2);
  });
});

describe('MessageMedia: a document', () => {
  const doc = msg({
    key: 'wamid_d',
    messageId: 'wamid_d',
    type: 'document',
    text: '',
    media: { filename: 'invoice.pdf', mimeType: 'application/pdf', size: 12_345 },
  });

  it('shows its name and size, and Save downloads it in the browser', async () => {
    const saved: Blob[] = [];
    const before = { createObjectURL: URL.createObjectURL, revokeObjectURL: URL.revokeObjectURL };
    Object.assign(URL, { createObjectURL: vi.fn((b: Blob) => (saved.push(b), 'blob:doc')), revokeObjectURL: vi.fn() });
    try {
      const t = show(doc, {
        'messages.saveMedia': {
          ok: true,
          value: {
            saved: 'download',
            file: { filename: 'invoice.pdf', mimeType: 'application/pdf', bytes: 4, dataBase64: btoa('%PDF') },
          },
        },
      });
      expect(screen.getByText('invoice.pdf')).toBeTruthy();
      expect(screen.getByText(/12\.3 KB/)).toBeTruthy();
      expect(t.calls.some((c) => c.name === 'messages.media')).toBe(false);
      fireEvent.click(screen.getByRole('button', { name: 'Save invoice.pdf' }));
      await flush();
      expect(t.calls.filter((c) => c.name === 'messages.saveMedia').map((c) => c.args)).toEqual([
        { teamId: 't1', agentId: 'a1', messageKey: 'wamid_d' },
      ]);
      expect(saved).toHaveLength(1);
      expect(await saved[0]!.text()).toBe('%PDF');
      expect(screen.getByRole('status').textContent).toBe('Downloaded invoice.pdf.');
    } finally {
      Object.assign(URL, before);
    }
  });

  it('saved through the desktop dialog says where; an expired file says so plainly and Save goes', async () => {
    let answer: Result<unknown> = { ok: true, value: { saved: 'file', filename: 'invoice (1).pdf' } };
    show(doc, { 'messages.saveMedia': () => answer });
    fireEvent.click(screen.getByRole('button', { name: 'Save invoice.pdf' }));
    await flush();
    expect(screen.getByRole('status').textContent).toBe('Saved as invoice (1).pdf.');
    answer = EXPIRED('This file is no longer available from the service.');
    fireEvent.click(screen.getByRole('button', { name: 'Save invoice.pdf' }));
    await flush();
    expect(screen.getByText('This file is no longer available from the service.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Save/ })).toBeNull();
  });
});

describe('MessageMedia: sent from this install by link', () => {
  it('is named with its link and never fetched', async () => {
    const t = show(
      msg({
        key: 'send:1',
        direction: 'out',
        via: 'messages',
        text: 'a cat',
        media: { url: 'https://example.com/cat.png' },
      }),
    );
    await flush();
    expect(screen.getByText(/sent by link: https:\/\/example\.com\/cat\.png/)).toBeTruthy();
    expect(t.calls.some((c) => c.name.startsWith('messages.'))).toBe(false);
  });
});
