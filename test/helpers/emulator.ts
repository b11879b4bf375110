// An emulator on 127.0.0.1 port 0 for integration tests, plus small HTTP helpers for its control surface.
import { defaultSeed, startEmulator, type Emulator, type EmulatorOptions } from '../../src-main/emulator';
import type { EmulatorControl } from '../../src-main/emulator/control';

type EmulatorState = Awaited<ReturnType<EmulatorControl['state']>>;

export const DEMO_KEY = defaultSeed().teams[0]!.apiKey;

export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ port: 0, host: '127.0.0.1', seed: defaultSeed(), ...opts });
}

export async function control<T = unknown>(
  emu: { controlUrl: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${method} ${path} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export function state(emu: { controlUrl: string }): Promise<EmulatorState> {
  return control<EmulatorState>(emu, 'GET', '/state');
}

export { waitFor } from './wait';
