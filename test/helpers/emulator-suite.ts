// Per test file: the demo emulator (port 0), a webhook sink and a temp folder, started before all
// tests and removed after all.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { startTestEmulator } from './emulator';
import { startHttpSink, type HttpSink } from './http-sink';

export interface EmulatorSuite {
  emu: Emulator;
  sink: HttpSink;
  dir: string;
}

/** Registers the hooks; `use` receives the started fixture (once, before the first test). */
export function emulatorSuite(tmpPrefix: string, use: (s: EmulatorSuite) => void): void {
  const s: Partial<EmulatorSuite> = {};
  beforeAll(async () => {
    s.emu = await startTestEmulator();
    s.sink = await startHttpSink();
    s.dir = await mkdtemp(join(tmpdir(), tmpPrefix));
    use(s as EmulatorSuite);
  });
  afterAll(async () => {
    await s.emu?.close();
    await s.sink?.close();
    if (s.dir) await rm(s.dir, { recursive: true, force: true });
  });
}
