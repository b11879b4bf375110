// @vitest-environment jsdom
// The Messages composer over a fake Api: a text, an image or a document by URL sent through
// messages.send with the console's send machinery; each send's status in the thread (going out,
// queued with its place and a ticking wait and the budget's ceiling, retrying while reconnecting,
// sent until the send log's line arrives, failed with why); a 409 names the scan with the Pair link;
// an agent known to need a scan asks first; the box clears once the send is queued. "New
// conversation": a number checked as typed, then with contacts.check; not on WhatsApp is refused
// before anything is sent; on WhatsApp its thread opens.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  AgentDTO,
  MessageDTO,
  Result,
  SendArgs,
  SendProgressDTO,
  SendResultDTO,
} from '../../../src-shared/contract';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

const TO = '+15550107777';
const SENT: Result<SendResultDTO> = { ok: true, value: { status: 'sent', messageId: 'wamid.1', to: TO } };

function open(
  answers: Parameters<typeof setup>[0] = {},
  agents: AgentDTO[] = [agent('a1', 'connected'), agent('a2', 'connected')],
  contact: string | null = TO,
) {
  const t = setup(
    {
      'teams.list': { ok: true, value: [team({ agentIds: agents.map((a) => a.agentId) })] },
      'agents.list': { ok: true, value: agents },
      'messages.thread': { ok: true, value: { messages: [], more: false } },
      ...answers,
    },
    {
      get t() {
        return Date.now();
      },
    },
  );
  connectStore(t.store, t.api);
  mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={contact} />);
  return t;
}

type Fake = ReturnType<typeof open>;

/** A send answered when the test says so. */
function held() {
  let answer: (r: Result<SendResultDTO>) => void = () => undefined;
  const fn = () => new Promise<Result<SendResultDTO>>((r) => (answer = r));
  return { fn, answer: (r: Result<SendResultDTO>) => act(() => answer(r)) };
}

const box = () => screen.getByLabelText(/^(Reply|Caption)$/) as HTMLTextAreaElement;
const going = () => screen.queryByRole('list', { name: 'Sends going out' });
const sends = (t: Fake) => t.calls.filter((c) => c.name === 'messages.send').map((c) => c.args as SendArgs);
/** The main side's send.progress for the send `clientRef` from a1 to TO. */
const progress = (t: Fake, clientRef: string, p: Omit<SendProgressDTO, 'teamId' | 'agentId' | 'to' | 'clientRef'>) =>
  act(() => t.emit('send.progress', { teamId: 't1', agentId: 'a1', to: TO, clientRef, ...p }));

async function write(text: string) {
  await flush();
  fireEvent.change(box(), { target: { value: text } });
  fireEvent.keyDown(box(), { key: 'Enter' });
  await flush();
}

/** The send log's line for a send, as messages.new brings it. */
const logged = (a: SendArgs, over: Partial<MessageDTO> = {}): MessageDTO => ({
  key: 'wamid.1',
  teamId: 't1',
  agentId: 'a1',
  contact: TO,
  at: Date.now(),
  direction: 'out',
  fromMe: false,
  type: 'text',
  text: a.text ?? '',
  messageId: 'wamid.1',
  status: 'sent',
  via: 'messages',
  ...(a.clientRef ? { clientRef: a.clientRef } : {}),
  ...over,
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  window.location.hash = '';
});

describe('Messages composer', () => {
  it('sends a text through messages.send; the thread shows it going, then sent, then as the send log has it', async () => {
    const h = held();
    const t = open({ 'messages.send': h.fn });
    await write('On its way.');
    expect(sends(t)).toEqual([
      { teamId: 't1', agentId: 'a1', to: TO, text: 'On its way.', clientRef: expect.stringMatching(/^send-/) },
    ]);
    expect(t.calls.some((c) => c.name === 'send.message')).toBe(false);
    expect(within(going()!).getByText('On its way.')).toBeTruthy();
    expect(going()!.textContent).toContain('Sending…');
    h.answer(SENT);
    await flush();
    expect(going()!.textContent).toContain('✓ Sent to +15550107777 — message id wamid.1');
    expect(box().value).toBe('');
    // The send log's line arrives: the thread has it, the row going out is gone.
    act(() => t.emit('messages.new', { message: logged(sends(t)[0]!) }));
    expect(going()).toBeNull();
    const thread = screen.getByRole('region', { name: `Conversation with ${TO}` });
    expect(within(thread).getByText('On its way.').closest('li')!.className).toContain('out');
  });

  it("the send log's line arriving before the send's own answer: the message is shown once, in the thread", async () => {
    const h = held();
    const t = open({ 'messages.send': h.fn });
    await write('Hello Robin.');
    expect(going()!.textContent).toContain('Sending…');
    act(() => t.emit('messages.new', { message: logged(sends(t)[0]!) }));
    expect(going()).toBeNull();
    const thread = screen.getByRole('region', { name: `Conversation with ${TO}` });
    const bubbles = () =>
      [...thread.querySelectorAll('li.messages-bubble.out')].filter((li) => li.textContent?.includes('Hello Robin.'));
    expect(bubbles()).toHaveLength(1);
    h.answer(SENT);
    await flush();
    expect(going()).toBeNull();
    expect(bubbles()).toHaveLength(1);
  });

  it('sends an image with its caption, and a document by URL with its file name and caption; a bad URL is said, nothing sent', async () => {
    const t = open({ 'messages.send': SENT });
    await flush();
    fireEvent.click(screen.getByRole('radio', { name: 'Image' }));
    fireEvent.change(screen.getByLabelText('Image URL'), { target: { value: 'not a url' } });
    fireEvent.change(box(), { target: { value: 'the box' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toBe(
      "The image's address is not a URL; give a public URL starting with https://.",
    );
    expect(sends(t)).toEqual([]);
    fireEvent.change(screen.getByLabelText('Image URL'), { target: { value: ' https://example.com/box.jpg ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await flush();
    fireEvent.click(screen.getByRole('radio', { name: 'Document' }));
    fireEvent.change(screen.getByLabelText('Document URL'), { target: { value: 'https://example.com/inv.pdf' } });
    fireEvent.change(screen.getByLabelText('File name'), { target: { value: 'invoice.pdf' } });
    fireEvent.change(box(), { target: { value: 'your invoice' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await flush();
    expect(sends(t).map(({ clientRef: _, ...a }) => a)).toEqual([
      { teamId: 't1', agentId: 'a1', to: TO, imageUrl: 'https://example.com/box.jpg', text: 'the box' },
      {
        teamId: 't1',
        agentId: 'a1',
        to: TO,
        documentUrl: 'https://example.com/inv.pdf',
        documentFilename: 'invoice.pdf',
        text: 'your invoice',
      },
    ]);
    // Both went out: the fields are empty again.
    expect(box().value).toBe('');
    expect((screen.getByLabelText('Document URL') as HTMLInputElement).value).toBe('');
  });

  it('a 503 while reconnecting: the send says it retries, keeps the text until it is sent, then it is sent', async () => {
    const h = held();
    const t = open({ 'messages.send': h.fn });
    await write('are you there?');
    const ref = sends(t)[0]!.clientRef!;
    progress(t, ref, {
      phase: 'retrying',
      attempt: 1,
      delayMs: 2000,
      error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'back soon', status: 503 },
    });
    expect(going()!.textContent).toContain('Reconnecting — retrying (attempt 1, next in 2 s)');
    expect(going()!.textContent).toContain('it keeps retrying while the number reconnects');
    h.answer(SENT);
    await flush();
    expect(going()!.textContent).toContain('✓ Sent after 1 retry to +15550107777');
    expect(box().value).toBe('');
  });

  it('a 429 or a spent budget queues the send: its place, a ticking wait and the ceiling; the box clears at once', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const queue = [{ id: 'q-1', agentId: 'a1', to: TO, enqueuedAt: 0, etaMs: 5000 }];
    const t = open({
      'messages.send': () => new Promise(() => undefined) as never,
      'send.budget': { ok: true, value: { teamId: 't1', limit: 30, windowMs: 60_000, used: 30, queued: queue } },
    });
    await write('queued one');
    const ref = sends(t)[0]!.clientRef!;
    progress(t, ref, { phase: 'queued', queuedId: 'q-1', position: 1, waitMs: 5000 });
    await act(() => t.store.getState().loadSendBudget('t1'));
    expect(going()!.textContent).toContain('Queued (position 1, about 5 s)');
    expect(going()!.textContent).toContain('the send budget (30 sends per minute) is spent; it leaves on its own.');
    expect(box().value).toBe('');
    act(() => vi.advanceTimersByTime(2000));
    expect(going()!.textContent).toContain('Queued (position 1, about 3 s)');
    // It can be cancelled while it waits (send.stop, as in the console).
    expect(within(going()!).getByRole('button', { name: `Cancel the send to ${TO}` })).toBeTruthy();
  });

  it('a 409 says a QR scan is needed, with the Pair action for that agent; the text is kept', async () => {
    const t = open({
      'messages.send': {
        ok: false,
        error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'not linked', status: 409 },
      },
    });
    await write('hello?');
    expect(sends(t)).toHaveLength(1);
    expect(going()).toBeNull();
    const alert = within(document.querySelector('.messages-compose-failed') as HTMLElement).getByRole('alert');
    expect(alert.textContent).toContain('Needs a QR scan.');
    expect(within(alert).getByRole('link', { name: 'Open pairing for a1' }).getAttribute('href')).toBe(
      '#/agents/a1/pairing?team=t1',
    );
    expect(box().value).toBe('hello?');
    // The send log's line (failed, with its clientRef) reaches the thread: the text is not shown twice.
    act(() =>
      t.emit('messages.new', {
        message: logged(sends(t)[0]!, {
          key: 'send:1',
          messageId: undefined,
          status: 'failed',
          error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'not linked' },
        }),
      }),
    );
    const failed = document.querySelector('.messages-compose-failed')!;
    expect(failed.querySelector('.messages-text')).toBeNull();
    expect(within(failed as HTMLElement).getByRole('button', { name: `Retry the send to ${TO}` })).toBeTruthy();
  });

  it('warns before sending from an agent known to need a scan, and sends only after "Send anyway"', async () => {
    const t = open({ 'messages.send': SENT }, [agent('a1', 'needs-scan'), agent('a2', 'connected')]);
    await flush();
    expect(screen.getByRole('link', { name: 'Pair Agent a1 (a1)' })).toBeTruthy();
    await write('hi');
    expect(sends(t)).toEqual([]);
    const ask = screen.getByRole('alert');
    expect(ask.textContent).toContain('Agent a1 (a1) needs a QR scan.');
    fireEvent.click(within(ask).getByRole('button', { name: "Don't send" }));
    expect(sends(t)).toEqual([]);
    expect(box().value).toBe('hi');
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    fireEvent.click(screen.getByRole('button', { name: 'Send anyway' }));
    await flush();
    expect(sends(t)).toHaveLength(1);
  });
});

describe('New conversation', () => {
  const start = async () => {
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'New conversation' }));
    return screen.getByRole('form', { name: 'New conversation' });
  };
  const number = (form: HTMLElement, v: string) =>
    fireEvent.change(within(form).getByLabelText('Phone number (with country code)'), { target: { value: v } });
  const noSend = (t: Fake) =>
    expect(t.calls.filter((c) => c.name === 'messages.send' || c.name === 'send.message')).toEqual([]);

  it('a number not on WhatsApp is said plainly before anything is sent, and nothing is sent', async () => {
    const t = open(
      { 'contacts.check': { ok: true, value: { phone: '15550109999', exists: false, jid: '' } } },
      undefined,
      null,
    );
    const form = await start();
    expect((within(form).getByLabelText('From agent') as HTMLSelectElement).value).toBe('t1/a1');
    number(form, '+1 555 010 9999');
    fireEvent.click(within(form).getByRole('button', { name: 'Check and open' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'contacts.check').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', phone: '+15550109999' },
    ]);
    expect(within(form).getByRole('alert').textContent).toBe(
      '+15550109999 is not on WhatsApp. Nothing was sent: a message to it would not arrive.',
    );
    noSend(t);
    expect(window.location.hash).toBe('');
  });

  it('a number on WhatsApp opens its thread for the chosen agent', async () => {
    const t = open(
      { 'contacts.check': { ok: true, value: { phone: '15550102000', exists: true, jid: 'x' } } },
      undefined,
      null,
    );
    const form = await start();
    fireEvent.change(within(form).getByLabelText('From agent'), { target: { value: 't1/a2' } });
    number(form, '1 (555) 010-2000');
    fireEvent.click(within(form).getByRole('button', { name: 'Check and open' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'contacts.check')?.args).toEqual({
      teamId: 't1',
      agentId: 'a2',
      phone: '+15550102000',
    });
    expect(window.location.hash).toBe('#/messages?team=t1&agent=a2&with=%2B15550102000');
    expect(screen.queryByRole('form', { name: 'New conversation' })).toBeNull();
    noSend(t);
  });

  it('an invalid number or a group gets a clear error and is not checked', async () => {
    const t = open({}, undefined, null);
    const form = await start();
    number(form, '0555 0102000');
    fireEvent.click(within(form).getByRole('button', { name: 'Check and open' }));
    await flush();
    expect(within(form).getByRole('alert').textContent).toBe(
      'The phone number starts with 0; write it with its country code (E.164), e.g. +15550102000.',
    );
    number(form, '120363012345678901@g.us');
    fireEvent.click(within(form).getByRole('button', { name: 'Check and open' }));
    await flush();
    expect(within(form).getByRole('alert').textContent).toBe(
      'A new conversation starts with a phone number; a group cannot be checked.',
    );
    expect(t.calls.some((c) => c.name === 'contacts.check')).toBe(false);
    noSend(t);
  });

  it('a failed contact check says why, and nothing is sent', async () => {
    const t = open(
      {
        'contacts.check': {
          ok: false,
          error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'x', status: 409 },
        },
      },
      undefined,
      null,
    );
    const form = await start();
    number(form, '+15550102000');
    fireEvent.click(within(form).getByRole('button', { name: 'Check and open' }));
    await flush();
    expect(within(form).getByRole('alert').textContent).toMatch(/^The contact check failed — .+ Nothing was sent\.$/);
    noSend(t);
  });
});
