// Test helpers for the emulator: a suite fixture on a manual clock and small request wrappers.
import { fetch, type Response } from 'undici';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../../src-main/emulator/index';
import { FakeClock } from '../../helpers/fake-clock';

/** A manual clock for an emulator suite (starts 2026-01-15 12:00 UTC). */
export const emulatorClock = () => new FakeClock(Date.UTC(2026, 0, 15, 12, 0, 0));

export type Api = ReturnType<typeof client>;

/**
 * One emulator per suite on a fresh manual clock (returned): started before all tests with `opts`,
 * reset before each, closed after all. `use` receives it and a client holding `key`.
 */
export function emulatorSuite(
  key: string,
  opts: Omit<EmulatorOptions, 'clock'>,
  use: (emu: Emulator, api: Api) => void,
): FakeClock {
  const clock = emulatorClock();
  let emu: Emulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator({ clock, ...opts });
    use(emu, client(emu, key));
  });
  afterAll(() => emu?.close());
  beforeEach(() => emu?.control.reset());
  return clock;
}

export { waitFor } from '../../helpers/wait';

export interface Call {
  status: number;
  headers: Response['headers'];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function client(emu: Emulator, key: string | null) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<Call> => {
    const headers: Record<string, string> = { ...extra };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${emu.baseUrl}${path}`, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* keep text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const agent = (id: string) => `/api/v1/agents/${id}`;
  return {
    call,
    session: (id: string) => call('GET', `${agent(id)}/whatsapp/session`),
    startSession: (id: string) => call('POST', `${agent(id)}/whatsapp/session`),
    send: (id: string, body: unknown) => call('POST', `${agent(id)}/whatsapp/messages`, body),
    webhook: (id: string, body: unknown) => call('PUT', `${agent(id)}/whatsapp/webhook`, body),
    contact: (id: string, phone: string) => call('GET', `${agent(id)}/whatsapp/contacts/${phone}`),
    settings: (id: string, body: unknown) => call('PATCH', `${agent(id)}/whatsapp/settings`, body),
    media: (id: string, messageId: string) => call('GET', `${agent(id)}/whatsapp/media/${messageId}`),
    chat: (id: string, body: unknown, extra?: Record<string, string>) => call('POST', `${agent(id)}/chat`, body, extra),
  };
}

export async function ctl(emu: Emulator, method: string, path: string, body?: unknown): Promise<Call> {
  const res = await fetch(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}
