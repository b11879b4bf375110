// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Result, SendArgs, SendBudgetDTO, SendProgressDTO, SendResultDTO } from '../../../src-shared/contract';
import { ConsoleScreen } from '../../../src-renderer/src/features/console/ConsoleScreen';
import { checkRecipient } from '../../../src-renderer/src/features/console/recipient';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup as storeSetup, team } from './fixtures';

const budget = (over: Partial<SendBudgetDTO> = {}): Result<SendBudgetDTO> => ({
  ok: true,
  value: { teamId: 'team1', limit: 60, windowMs: 60_000, used: 3, queued: [], ...over },
});

function setup(answers: Parameters<typeof storeSetup>[0] = {}) {
  // The store's clock is the page's (Date.now), which the countdowns on screen tick by.
  const t = storeSetup(
    { 'send.budget': budget(), ...answers },
    {
      get t() {
        return Date.now();
      },
    },
    { nextFrame: (fn) => fn() },
  );
  connectStore(t.store, t.api);
  mount(t.store, <ConsoleScreen teamId="team1" agentId="a1" />);
  return t;
}

type Fake = ReturnType<typeof setup>;

/** A send.progress event for the send `clientRef` (team1, a1, to +15550102000). */
function progress(
  fake: Fake,
  clientRef: string | undefined,
  p: Omit<SendProgressDTO, 'teamId' | 'agentId' | 'to' | 'clientRef'>,
) {
  act(() =>
    fake.emit('send.progress', {
      teamId: 'team1',
      agentId: 'a1',
      to: '+15550102000',
      ...(clientRef ? { clientRef } : {}),
      ...p,
    }),
  );
}

const toBox = () => screen.getByLabelText('To (phone number with country code, or JID)') as HTMLInputElement;
const msgBox = () => screen.getByLabelText('Message') as HTMLTextAreaElement;
const sent: Result<SendResultDTO> = { ok: true, value: { status: 'sent', messageId: 'wamid.123', to: '+15550102000' } };

async function typeAndSend(number = '+1 (555) 010-2000', text = 'hello') {
  fireEvent.change(toBox(), { target: { value: number } });
  fireEvent.change(msgBox(), { target: { value: text } });
  fireEvent.keyDown(msgBox(), { key: 'Enter' });
  await flush();
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('recipient validation (same rules as the core)', () => {
  it.each([
    ['+1 (555) 010-2000', '+15550102000'],
    ['15550102000', '+15550102000'],
    ['+15550102000', '+15550102000'],
    ['15550102000@s.whatsapp.net', '15550102000@s.whatsapp.net'],
    ['120363012345678901@g.us', '120363012345678901@g.us'],
  ])('%s → %s', (input, value) => {
    expect(checkRecipient(input)).toMatchObject({ ok: true, value });
  });
  it.each([
    ['555-CALL-NOW', 'contains letters'],
    ['0555 0102000', 'starts with 0'],
    ['+1 555', 'too short'],
    ['+1234567890123456', 'too long'],
    ['1+5550102000', '"+" that is not at the start'],
    ['abc@s.whatsapp.net', 'must be the phone number in digits'],
    ['123@example.com', 'Unknown JID domain'],
  ])('%s is rejected (%s)', (input, words) => {
    const r = checkRecipient(input);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toContain(words);
  });
});

describe('console screen', () => {
  it('validates the number as typed, showing the normalised form or a clear message', () => {
    setup();
    fireEvent.change(toBox(), { target: { value: '+1 (555) 0' } });
    expect(screen.getByText('The phone number is too short: 5 digits, at least 8 needed.')).toBeTruthy();
    fireEvent.change(toBox(), { target: { value: '555-CALL' } });
    expect(screen.getByText('The phone number contains letters; a phone number has only digits.')).toBeTruthy();
    expect(toBox().getAttribute('aria-invalid')).toBe('true');
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(toBox(), { target: { value: '+1 (555) 010-2000' } });
    expect(screen.getByText('Sends to +15550102000')).toBeTruthy();
  });

  it('checks the contact with Alt+C using the normalised number', async () => {
    const fake = setup({
      'contacts.check': { ok: true, value: { phone: '15550102000', exists: true, jid: '15550102000@s.whatsapp.net' } },
    });
    fireEvent.change(toBox(), { target: { value: '1 555 010 2000' } });
    fireEvent.keyDown(toBox(), { key: 'c', code: 'KeyC', altKey: true });
    await flush();
    expect(fake.calls.find((c) => c.name === 'contacts.check')?.args).toEqual({
      teamId: 'team1',
      agentId: 'a1',
      phone: '+15550102000',
    });
    expect(screen.getByText('On WhatsApp: yes — JID 15550102000@s.whatsapp.net')).toBeTruthy();
  });

  it('sends, shows the result under the Send button and lists the message id; clears the text and keeps the number', async () => {
    const fake = setup({ 'send.message': sent });
    await typeAndSend();
    expect(fake.calls.find((c) => c.name === 'send.message')?.args).toMatchObject({
      teamId: 'team1',
      agentId: 'a1',
      to: '+15550102000',
      text: 'hello',
    });
    const result = document.querySelector('.send-result')!;
    expect(result.textContent).toBe('✓ Sent to +15550102000 — message id wamid.123');
    expect(within(screen.getByRole('table')).getByText('wamid.123')).toBeTruthy();
    expect(msgBox().value).toBe('');
    expect(toBox().value).toBe('+1 (555) 010-2000');
  });

  it('a long message is cut short in its history row, with everything sent one click away', async () => {
    setup({ 'send.message': sent });
    const long = `https://example.com/${'a'.repeat(300)}`;
    await typeAndSend('+15550102000', long);
    const cell = document.querySelector('table.send-history td.send-content')!;
    expect(cell.firstChild?.textContent).toBe(`${long.slice(0, 120)}…`);
    const all = within(cell as HTMLElement).getByLabelText('Everything sent to +15550102000');
    expect(all.textContent).toBe(long);
    expect(cell.querySelector('summary')?.textContent).toBe('All 320 characters');
    cleanup();
    setup({ 'send.message': sent });
    await typeAndSend('+15550102000', 'short');
    expect(document.querySelector('table.send-history td.send-content')?.textContent).toBe('short');
    expect(document.querySelector('table.send-history details')).toBeNull();
  });

  it('409 not-configured says it needs a QR scan and links to pairing; the text is kept', async () => {
    setup({
      'send.message': {
        ok: false,
        error: { kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', message: 'not linked', status: 409 },
      },
    });
    await typeAndSend();
    expect(screen.getByRole('alert').textContent).toContain('Needs a QR scan.');
    const link = screen.getByRole('link', { name: 'Open pairing for a1' });
    expect(link.getAttribute('href')).toBe('#/agents/a1/pairing?team=team1');
    expect(msgBox().value).toBe('hello');
  });

  it('503 reconnecting shows each retry as it happens, then how many retries were made, with Retry', async () => {
    let answer: (r: Result<SendResultDTO>) => void = () => undefined;
    const fake = setup({ 'send.message': () => new Promise((r) => (answer = r)) as never });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    expect(args.clientRef).toBeTruthy();
    const retry = (attempt: number) =>
      progress(fake, args.clientRef, {
        phase: 'retrying',
        attempt,
        delayMs: 2000,
        error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting', status: 503 },
      });
    retry(1);
    expect(document.querySelector('.send-progress')?.textContent).toBe(
      'Reconnecting — retrying (attempt 1, next in 2 s) — it keeps retrying while the number reconnects.',
    );
    retry(2);
    expect(document.querySelector('.send-progress')?.textContent).toContain(
      'Reconnecting — retrying (attempt 2, next in 2 s)',
    );
    await act(async () =>
      answer({
        ok: false,
        error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting', status: 503 },
      }),
    );
    expect(screen.getByRole('alert').textContent).toContain('Reconnecting — retried 2 times');
    expect(msgBox().value).toBe('hello');
    expect(screen.getAllByRole('button', { name: 'Retry the send to +15550102000' }).length).toBeGreaterThan(0);
  });

  it('429 says the rate limit per minute and counts down from retryAfterSec', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    setup({
      'send.message': {
        ok: false,
        error: {
          kind: 'rate-limited',
          code: 'RATE_LIMITED',
          message: 'slow down',
          status: 429,
          retryAfterSec: 3,
          limit: 60,
        },
      },
    });
    await typeAndSend();
    expect(screen.getByRole('alert').textContent).toBe('Rate limit (60 per minute) — you can send again in 3 s.');
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByRole('alert').textContent).toBe('Rate limit (60 per minute) — you can send again in 2 s.');
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.getByRole('alert').textContent).toBe('Rate limit (60 per minute) — you can send again now.');
  });

  it('a 429 retry in progress says the rate limit per minute', async () => {
    const fake = setup({ 'send.message': () => new Promise(() => undefined) as never });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    progress(fake, args.clientRef, {
      phase: 'retrying',
      attempt: 1,
      delayMs: 4000,
      error: { kind: 'rate-limited', code: 'RATE_LIMITED', message: 'slow down', status: 429, limit: 30 },
    });
    expect(document.querySelector('.send-progress')?.textContent).toBe(
      'Rate limit (30 per minute) — retrying (attempt 1, next in 4 s)',
    );
  });

  it('an invalid-request about the recipient is shown next to the number field, without its code', async () => {
    setup({
      'send.message': {
        ok: false,
        error: { kind: 'invalid-request', code: 'INVALID_RECIPIENT', message: 'no such number', status: 400 },
      },
    });
    await typeAndSend();
    const err = screen.getByText('The service refused the request: no such number.');
    expect(toBox().getAttribute('aria-describedby')).toContain(err.id);
    expect(document.body.textContent).not.toContain('INVALID_RECIPIENT');
    expect(msgBox().value).toBe('hello');
  });

  it("the app checks an image URL (not the browser), and a field's error goes once the field holds another value", async () => {
    const refused = (url: string): Result<SendResultDTO> => ({
      ok: false,
      error: {
        kind: 'validation',
        code: 'INVALID_ARGUMENTS',
        field: 'imageUrl',
        message: url.startsWith('javascript')
          ? 'imageUrl: must be an http(s) URL, not javascript:'
          : 'imageUrl: is not a valid URL',
      },
    });
    const fake = setup({ 'send.message': (a: SendArgs) => refused(a.imageUrl ?? '') });
    fireEvent.click(screen.getByRole('radio', { name: 'Image' }));
    fireEvent.change(toBox(), { target: { value: '+15550102000' } });
    const urlBox = screen.getByLabelText('Image URL') as HTMLInputElement;
    const send = () => fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    fireEvent.change(urlBox, { target: { value: 'javascript:alert(1)' } });
    send();
    await flush();
    const first = screen.getByRole('alert');
    expect(first.textContent).toContain('not javascript:');
    expect(urlBox.getAttribute('aria-describedby')).toBe(first.id);
    // Another value: the old error is gone at once, and the next Send reaches the app's own check.
    fireEvent.change(urlBox, { target: { value: 'example.com/a.png' } });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(urlBox.getAttribute('aria-describedby')).toBeNull();
    send();
    await flush();
    expect(fake.calls.filter((c) => c.name === 'send.message').map((c) => (c.args as SendArgs).imageUrl)).toEqual([
      'javascript:alert(1)',
      'example.com/a.png',
    ]);
    expect(screen.getByRole('alert').textContent).toContain('is not a valid URL');
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(urlBox.value).toBe('example.com/a.png');
  });

  it('shows the spent budget (not a full green bar) and the queue; cancel calls send.cancel', async () => {
    const full = budget({
      limit: 10,
      used: 10,
      queued: [{ id: 'q-1', agentId: 'a1', to: '+15550102000', enqueuedAt: 0, etaMs: 4200 }],
    });
    const fake = setup({ 'send.budget': full, 'send.cancel': { ok: true, value: { cancelled: true } } });
    await flush();
    const meter = screen.getByRole('meter', { name: 'Send budget used' });
    expect(meter.getAttribute('aria-valuenow')).toBe('10');
    expect(meter.getAttribute('aria-valuetext')).toBe('10 of 10 sends used in the last minute');
    expect(meter.closest('.send-meter')?.className).toContain('send-meter-spent');
    expect(screen.getByText(/budget spent/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel queued send to +15550102000' }));
    await flush();
    expect(fake.calls.find((c) => c.name === 'send.cancel')?.args).toEqual({ teamId: 'team1', queuedId: 'q-1' });
    expect(screen.getByText('Cancelled the send to +15550102000.')).toBeTruthy();
  });

  it('the budget bar warns when nearly spent and is calm otherwise', async () => {
    setup({ 'send.budget': budget({ limit: 10, used: 8 }) });
    await flush();
    expect(screen.getByRole('meter').closest('.send-meter')?.className).toContain('send-meter-nearly');
    cleanup();
    setup({ 'send.budget': budget({ limit: 10, used: 2 }) });
    await flush();
    expect(screen.getByRole('meter').closest('.send-meter')?.className).toContain('send-meter-ok');
  });

  it('while sends wait in the queue the form stays open: a second send goes out beside the first', async () => {
    const fake = setup({ 'send.message': () => new Promise(() => undefined) as never });
    await typeAndSend('+15550102000', 'first');
    const first = fake.calls.filter((c) => c.name === 'send.message')[0]?.args as SendArgs;
    progress(fake, first.clientRef, { phase: 'queued', queuedId: 'q-1', position: 1, waitMs: 5000 });
    expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 1, about 5 s)');
    const button = screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    await typeAndSend('+15550102000', 'second');
    const sends = fake.calls.filter((c) => c.name === 'send.message').map((c) => (c.args as SendArgs).text);
    expect(sends).toEqual(['first', 'second']);
    expect(screen.getAllByRole('row')).toHaveLength(3);
  });

  it('a queued send shows its place and wait as the send budget reads them now, not as they were when it was queued', async () => {
    const waiting = (etaMs: number) => ({ id: 'q-3', agentId: 'a1', to: '+15550102000', enqueuedAt: 0, etaMs });
    let queue = [{ ...waiting(1000), id: 'q-1' }, { ...waiting(61_000), id: 'q-2' }, waiting(121_000)];
    const fake = setup({
      'send.message': () => new Promise(() => undefined) as never,
      'send.budget': () => budget({ limit: 2, used: 2, queued: queue }),
    });
    await typeAndSend('+15550102000', 'fifth');
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    progress(fake, args.clientRef, { phase: 'queued', queuedId: 'q-3', position: 3, waitMs: 121_000 });
    await flush();
    const row = () => screen.getAllByRole('row')[1]!.textContent;
    expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 3, about 121 s)');
    expect(row()).toContain('Queued (position 3, about 121 s)');
    // Two left the queue; the next read of the budget has it first, leaving in 55 s.
    queue = [waiting(55_000)];
    await act(() => fake.store.getState().loadSendBudget('team1'));
    expect(screen.getByText(/leaves in about/).textContent).toContain('leaves in about 55 s');
    expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 1, about 55 s)');
    expect(row()).toContain('Queued (position 1, about 55 s)');
  });

  it("the waits count down on screen between two reads: a queued send, the budget's queue and a retry's next try", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const queue = [{ id: 'q-1', agentId: 'a1', to: '+15550102000', enqueuedAt: 0, etaMs: 5000 }];
      const fake = setup({
        'send.message': () => new Promise(() => undefined) as never,
        'send.budget': () => budget({ limit: 2, used: 2, queued: queue }),
      });
      await typeAndSend('+15550102000', 'first');
      const first = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
      progress(fake, first.clientRef, { phase: 'queued', queuedId: 'q-1', position: 1, waitMs: 5000 });
      await act(() => fake.store.getState().loadSendBudget('team1'));
      expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 1, about 5 s)');
      expect(screen.getByText(/leaves in about/).textContent).toContain('leaves in about 5 s');
      act(() => vi.advanceTimersByTime(2000));
      expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 1, about 3 s)');
      expect(screen.getAllByRole('row')[1]!.textContent).toContain('Queued (position 1, about 3 s)');
      expect(screen.getByText(/leaves in about/).textContent).toContain('leaves in about 3 s');
      act(() => vi.advanceTimersByTime(10_000));
      expect(document.querySelector('.send-progress')?.textContent).toContain('Queued (position 1, about 0 s)');

      await typeAndSend('+15550102000', 'second');
      const second = fake.calls.filter((c) => c.name === 'send.message')[1]?.args as SendArgs;
      progress(fake, second.clientRef, {
        phase: 'retrying',
        attempt: 1,
        delayMs: 4000,
        error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'back soon', status: 503 },
      });
      expect(document.querySelector('.send-progress')?.textContent).toContain('attempt 1, next in 4 s');
      act(() => vi.advanceTimersByTime(3000));
      expect(document.querySelector('.send-progress')?.textContent).toContain('attempt 1, next in 1 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a waiting send can be cancelled by its clientRef (send.stop), from the result or its history row', async () => {
    let answer: (r: unknown) => void = () => undefined;
    const fake = setup({
      'send.message': () => new Promise((r) => (answer = r)) as never,
      'send.stop': { ok: true, value: { stopped: true } },
    });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    // Not while it is simply going out.
    expect(screen.queryByRole('button', { name: 'Cancel the send to +15550102000' })).toBeNull();
    progress(fake, args.clientRef, { phase: 'queued', queuedId: 'q-42', position: 1, waitMs: 3000 });
    expect(screen.getAllByRole('button', { name: 'Cancel the send to +15550102000' })).toHaveLength(2);
    fireEvent.click(screen.getAllByRole('button', { name: 'Cancel the send to +15550102000' })[0]!);
    await flush();
    expect(fake.calls.find((c) => c.name === 'send.stop')?.args).toEqual({ clientRef: args.clientRef });
    // The main process then ends the send as aborted: cancelled, nothing sent, with Retry.
    answer({ ok: false, error: { kind: 'aborted', code: 'ABORTED', message: 'The send was cancelled.' } });
    await flush();
    expect(screen.queryByRole('button', { name: 'Cancel the send to +15550102000' })).toBeNull();
    expect(document.querySelector('.send-cancelled')?.textContent).toBe('Cancelled — this message was not sent.');
    expect(within(screen.getByRole('table')).getByText('Cancelled')).toBeTruthy();
    expect(msgBox().value).toBe('hello');
  });

  it('Retry sends the failed message again as a new send, once', async () => {
    let n = 0;
    const fake = setup({
      'send.message': () =>
        ++n === 1
          ? { ok: false, error: { kind: 'server-error', code: 'SERVER_ERROR', message: 'boom', status: 500 } }
          : sent,
    });
    await typeAndSend('+15550102000', 'try me');
    expect(screen.getByRole('alert').textContent).toContain('The service had a problem (HTTP 500).');
    fireEvent.click(
      within(document.querySelector('.send-result') as HTMLElement).getByRole('button', {
        name: 'Retry the send to +15550102000',
      }),
    );
    await flush();
    const sends = fake.calls.filter((c) => c.name === 'send.message').map((c) => c.args as SendArgs);
    expect(sends).toHaveLength(2);
    expect(sends[1]).toMatchObject({ teamId: 'team1', agentId: 'a1', to: '+15550102000', text: 'try me' });
    expect(sends[1]!.clientRef).not.toBe(sends[0]!.clientRef);
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((r) => r.getAttribute('data-state'))).toEqual(['sent', 'failed']);
    // The failed one was retried: it offers Retry no more.
    expect(screen.queryByRole('button', { name: 'Retry the send to +15550102000' })).toBeNull();
  });

  it('warns before sending to a number the contact check says is not on WhatsApp', async () => {
    const fake = setup({
      'contacts.check': { ok: true, value: { phone: '15550109999', exists: false, jid: '' } },
      'send.message': sent,
    });
    fireEvent.change(toBox(), { target: { value: '+1 555 010 9999' } });
    fireEvent.click(screen.getByRole('button', { name: /Check contact/ }));
    await flush();
    expect(screen.getByText(/On WhatsApp: no — 15550109999 has no WhatsApp account/)).toBeTruthy();
    fireEvent.change(msgBox(), { target: { value: 'anyone there?' } });
    fireEvent.keyDown(msgBox(), { key: 'Enter' });
    await flush();
    expect(fake.calls.some((c) => c.name === 'send.message')).toBe(false);
    expect(screen.getByRole('alert').textContent).toContain('+15550109999 is not on WhatsApp.');
    fireEvent.click(screen.getByRole('button', { name: "Don't send" }));
    expect(fake.calls.some((c) => c.name === 'send.message')).toBe(false);
    fireEvent.keyDown(msgBox(), { key: 'Enter' });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Send anyway' }));
    await flush();
    expect(fake.calls.filter((c) => c.name === 'send.message')).toHaveLength(1);
  });
});

describe('console send burst', () => {
  it('the budget says whose sends its queue counts, and a row stops reading "Queued" once its send left the queue', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const waiting = (id: string, agentId: string) => ({ id, agentId, to: '+15550102000', enqueuedAt: 0, etaMs: 5000 });
    let queue = [waiting('q-1', 'a1'), waiting('q-2', 'a2'), waiting('q-3', 'a2')];
    const fake = setup({
      'send.message': () => new Promise(() => undefined) as never,
      'send.budget': () => budget({ limit: 2, used: 2, queued: queue }),
    });
    await typeAndSend('+15550102000', 'first');
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    progress(fake, args.clientRef, { phase: 'queued', queuedId: 'q-1', position: 1, waitMs: 5000 });
    await flush();
    const queuedRows = () => document.querySelectorAll('table.send-history tr[data-state="queued"]').length;
    expect(queuedRows()).toBe(1);
    // The team's queue holds three, one of them this agent's: the words say so.
    expect(screen.getByRole('heading', { name: "Waiting in the team's queue (3)" })).toBeTruthy();
    expect(document.querySelector('.queue-mine')?.textContent).toBe('1 from a1, 2 from other agents of the team.');
    // It left the queue: the next read no longer lists it, and its row says it is going out.
    vi.advanceTimersByTime(2000);
    queue = [waiting('q-2', 'a2')];
    await act(() => fake.store.getState().loadSendBudget('team1'));
    expect(queuedRows()).toBe(0);
    expect(document.querySelector('.queue-mine')?.textContent).toBe('0 from a1, 1 from other agents of the team.');
    expect(screen.getAllByRole('row')[1]!.textContent).toContain('Sending…');
    expect(screen.queryByRole('button', { name: 'Cancel the send to +15550102000' })).toBeNull();
  });

  it('the message box clears once the send is queued, and gets the text back if that send is then cancelled', async () => {
    let answer: (r: unknown) => void = () => undefined;
    const fake = setup({
      'send.message': () => new Promise((r) => (answer = r)) as never,
      'send.stop': { ok: true, value: { stopped: true } },
    });
    await typeAndSend('+15550102000', 'burst 1');
    expect(msgBox().value).toBe('burst 1');
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    progress(fake, args.clientRef, { phase: 'queued', queuedId: 'q-1', position: 1, waitMs: 5000 });
    expect(msgBox().value).toBe('');
    answer({ ok: false, error: { kind: 'aborted', code: 'ABORTED', message: 'The send was cancelled.' } });
    await flush();
    expect(msgBox().value).toBe('burst 1');
  });

  it('warns before sending from an agent that needs a QR scan, with the Pair link, and sends only after "Send anyway"', async () => {
    const fake = setup({
      'send.message': sent,
      'agents.list': { ok: true, value: [{ ...agent('a1', 'needs-scan', {}, 'team1'), label: 'Support bot' }] },
    });
    await flush();
    const warning = document.querySelector('.send-scan-warning')!;
    expect(warning.textContent).toContain('Support bot (a1) needs a QR scan');
    expect(
      within(warning as HTMLElement)
        .getByRole('link', { name: 'Pair Support bot (a1)' })
        .getAttribute('href'),
    ).toBe('#/agents/a1/pairing?team=team1');
    await typeAndSend('+15550102000', 'hello?');
    expect(fake.calls.some((c) => c.name === 'send.message')).toBe(false);
    const confirm = screen.getByRole('alert');
    expect(confirm.textContent).toContain('Support bot (a1) needs a QR scan.');
    expect(within(confirm).getByRole('link', { name: 'Pair Support bot (a1)' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Send anyway' }));
    await flush();
    expect(fake.calls.filter((c) => c.name === 'send.message')).toHaveLength(1);
  });

  it('a contact check clears the previous result line while it runs', async () => {
    let answer: (r: unknown) => void = () => undefined;
    let n = 0;
    setup({
      'contacts.check': () =>
        ++n === 1
          ? { ok: true, value: { phone: '15550102000', exists: true, jid: '15550102000@s.whatsapp.net' } }
          : new Promise((r) => (answer = r)),
    });
    fireEvent.change(toBox(), { target: { value: '+15550102000' } });
    fireEvent.click(screen.getByRole('button', { name: /Check contact/ }));
    await flush();
    expect(screen.getByText(/On WhatsApp: yes/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Check contact/ }));
    await flush();
    expect(screen.getByRole('button', { name: 'Checking…' })).toBeTruthy();
    expect(screen.queryByText(/On WhatsApp:/)).toBeNull();
    answer({ ok: true, value: { phone: '15550102000', exists: false, jid: '' } });
    await flush();
    expect(screen.getByText(/On WhatsApp: no/)).toBeTruthy();
  });

  it('an image row in the history shows its URL under the caption', async () => {
    setup({ 'send.message': sent });
    fireEvent.click(screen.getByRole('radio', { name: 'Image' }));
    fireEvent.change(toBox(), { target: { value: '+15550102000' } });
    fireEvent.change(screen.getByLabelText('Image URL'), { target: { value: 'https://example.com/cat.png' } });
    fireEvent.change(screen.getByLabelText('Caption'), { target: { value: 'a cat' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await flush();
    const cell = document.querySelector('table.send-history td.send-content')!;
    expect(cell.textContent).toContain('a cat');
    expect(cell.querySelector('.send-url')?.textContent).toBe('https://example.com/cat.png');
  });
});

describe('console pickers', () => {
  it('show agent labels with the id in small print, and preselect the only team', async () => {
    const t = storeSetup({ 'send.budget': budget() });
    t.store.setState({ teams: [team({ teamId: 'team1', label: 'Ops', agentIds: ['a1', 'a2'] })], loaded: true });
    t.store
      .getState()
      .setAgents([
        agent('a1', 'connected', {}, 'team1'),
        { ...agent('a2', 'connected', {}, 'team1'), label: 'Support bot' },
      ]);
    mount(t.store, <ConsoleScreen />);
    const teamBox = screen.getByRole('combobox', { name: 'Team' }) as HTMLSelectElement;
    expect(teamBox.value).toBe('team1');
    const agentBox = screen.getByRole('combobox', { name: 'Agent' }) as HTMLSelectElement;
    expect([...agentBox.options].map((o) => [o.value, o.textContent])).toEqual([
      ['', 'Choose an agent'],
      ['a1', 'Agent a1'],
      ['a2', 'Support bot'],
    ]);
    fireEvent.change(agentBox, { target: { value: 'a2' } });
    expect(document.querySelector('.picker-id')?.textContent).toBe('id a2');
    expect(agentBox.getAttribute('aria-describedby')).toBe(document.querySelector('.picker-id')?.id);
  });

  it('with several teams, none is chosen for you', () => {
    const t = storeSetup({ 'send.budget': budget() });
    t.store.setState({ teams: [team({ teamId: 'team1' }), team({ teamId: 'team2', label: 'Sales' })], loaded: true });
    mount(t.store, <ConsoleScreen />);
    expect((screen.getByRole('combobox', { name: 'Team' }) as HTMLSelectElement).value).toBe('');
  });
});
