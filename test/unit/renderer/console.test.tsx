// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Result, SendArgs, SendBudgetDTO, SendResultDTO } from '../../../src-shared/contract';
import { ConsoleScreen } from '../../../src-renderer/src/features/console/ConsoleScreen';
import { checkRecipient } from '../../../src-renderer/src/features/console/recipient';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup as storeSetup } from './fixtures';

const budget = (over: Partial<SendBudgetDTO> = {}): Result<SendBudgetDTO> => ({ ok: true, value: { teamId: 'team1', limit: 60, windowMs: 60_000, used: 3, queued: [], ...over } });

function setup(answers: Parameters<typeof storeSetup>[0] = {}) {
  const t = storeSetup({ 'send.budget': budget(), ...answers }, { t: 1_700_000_000_000 }, { nextFrame: (fn) => fn() });
  connectStore(t.store, t.api);
  mount(t.store, <ConsoleScreen teamId="team1" agentId="a1" />);
  return t;
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
    const fake = setup({ 'contacts.check': { ok: true, value: { phone: '15550102000', exists: true, jid: '15550102000@s.whatsapp.net' } } });
    fireEvent.change(toBox(), { target: { value: '1 555 010 2000' } });
    fireEvent.keyDown(toBox(), { key: 'c', code: 'KeyC', altKey: true });
    await flush();
    expect(fake.calls.find((c) => c.name === 'contacts.check')?.args).toEqual({ teamId: 'team1', agentId: 'a1', phone: '+15550102000' });
    expect(screen.getByText('On WhatsApp: yes — JID 15550102000@s.whatsapp.net')).toBeTruthy();
  });

  it('sends, lists the message id, clears the text and keeps the number', async () => {
    const fake = setup({ 'send.message': sent });
    await typeAndSend();
    expect(fake.calls.find((c) => c.name === 'send.message')?.args).toMatchObject({ teamId: 'team1', agentId: 'a1', to: '+15550102000', text: 'hello' });
    expect(screen.getByText('wamid.123')).toBeTruthy();
    expect(screen.getByText('Sent')).toBeTruthy();
    expect(msgBox().value).toBe('');
    expect(toBox().value).toBe('+1 (555) 010-2000');
  });

  it('409 not-configured says it needs a QR scan and links to pairing; the text is kept', async () => {
    setup({ 'send.message': { ok: false, error: { kind: 'not-configured', code: 'CHANNEL_NOT_CONFIGURED', message: 'not linked', status: 409 } } });
    await typeAndSend();
    expect(screen.getByRole('alert').textContent).toContain('Needs a QR scan.');
    const link = screen.getByRole('link', { name: 'Open pairing for a1' });
    expect(link.getAttribute('href')).toBe('#/agents/a1/pairing?team=team1');
    expect(msgBox().value).toBe('hello');
  });

  it('503 reconnecting shows each retry as it happens, then how many retries were made', async () => {
    let answer: (r: Result<SendResultDTO>) => void = () => undefined;
    const fake = setup({ 'send.message': () => new Promise((r) => (answer = r)) as never });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    expect(args.clientRef).toBeTruthy();
    const retry = (attempt: number) =>
      act(() =>
        fake.emit('send.progress', {
          teamId: 'team1',
          agentId: 'a1',
          to: '+15550102000',
          clientRef: args.clientRef,
          phase: 'retrying',
          attempt,
          delayMs: 2000,
          error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting', status: 503 },
        }),
      );
    retry(1);
    expect(screen.getByText('Reconnecting — retrying (attempt 1, next in 2 s)', { selector: '.send-progress' })).toBeTruthy();
    retry(2);
    expect(screen.getByText('Reconnecting — retrying (attempt 2, next in 2 s)', { selector: '.send-progress' })).toBeTruthy();
    await act(async () => answer({ ok: false, error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting', status: 503 } }));
    expect(screen.getByRole('alert').textContent).toContain('Reconnecting — retried 2 times');
    expect(msgBox().value).toBe('hello');
  });

  it('429 counts down from retryAfterSec', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    setup({ 'send.message': { ok: false, error: { kind: 'rate-limited', code: 'RATE_LIMITED', message: 'slow down', status: 429, retryAfterSec: 3 } } });
    await typeAndSend();
    expect(screen.getByRole('alert').textContent).toBe('Rate limited — you can send again in 3 s.');
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByRole('alert').textContent).toBe('Rate limited — you can send again in 2 s.');
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.getByRole('alert').textContent).toBe('Rate limited — you can send again now.');
  });

  it('an invalid-request about the recipient is shown next to the number field', async () => {
    setup({ 'send.message': { ok: false, error: { kind: 'invalid-request', code: 'INVALID_RECIPIENT', message: 'no such number', status: 400 } } });
    await typeAndSend();
    const err = screen.getByText('Invalid request (HTTP 400): no such number');
    expect(toBox().getAttribute('aria-describedby')).toContain(err.id);
    expect(msgBox().value).toBe('hello');
  });

  it('shows the meter and the queue when the budget is spent; cancel calls send.cancel', async () => {
    const full = budget({ limit: 10, used: 10, queued: [{ id: 'q-1', agentId: 'a1', to: '+15550102000', enqueuedAt: 0, etaMs: 4200 }] });
    const fake = setup({ 'send.budget': full, 'send.cancel': { ok: true, value: { cancelled: true } } });
    await flush();
    expect(screen.getByText(/10 of 10 sends in the last minute/)).toBeTruthy();
    expect(screen.getByText(/budget spent/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel queued send to +15550102000' }));
    await flush();
    expect(fake.calls.find((c) => c.name === 'send.cancel')?.args).toEqual({ teamId: 'team1', queuedId: 'q-1' });
    expect(screen.getByText('Cancelled the send to +15550102000.')).toBeTruthy();
  });

  it('a queued send shows its place in the history', async () => {
    const fake = setup({ 'send.message': () => new Promise(() => undefined) as never });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    act(() => fake.emit('send.progress', { teamId: 'team1', agentId: 'a1', to: '+15550102000', clientRef: args.clientRef, phase: 'queued', position: 2, waitMs: 5000 }));
    expect(screen.getAllByText('Queued (position 2, about 5 s)').length).toBeGreaterThan(0);
  });

  it('a queued send can be cancelled from its history row by the id its progress event carried', async () => {
    let answer: (r: unknown) => void = () => undefined;
    const fake = setup({
      'send.message': () => new Promise((r) => (answer = r)) as never,
      'send.cancel': { ok: true, value: { cancelled: true } },
    });
    await typeAndSend();
    const args = fake.calls.find((c) => c.name === 'send.message')?.args as SendArgs;
    expect(screen.queryByRole('button', { name: 'Cancel the queued send to +15550102000' })).toBeNull();
    act(() => fake.emit('send.progress', { teamId: 'team1', agentId: 'a1', to: '+15550102000', clientRef: args.clientRef, phase: 'queued', queuedId: 'q-42', position: 1, waitMs: 3000 }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel the queued send to +15550102000' }));
    await flush();
    expect(fake.calls.find((c) => c.name === 'send.cancel')?.args).toEqual({ teamId: 'team1', queuedId: 'q-42' });
    // The core then rejects the send as aborted: the row ends failed and the button goes.
    answer({ ok: false, error: { kind: 'aborted', code: 'ABORTED', message: 'The send was cancelled.' } });
    await flush();
    expect(screen.queryByRole('button', { name: 'Cancel the queued send to +15550102000' })).toBeNull();
  });
});
