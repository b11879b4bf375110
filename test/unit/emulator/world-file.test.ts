// The emulator's agent states kept in a file: an emulator started again on the same file continues
// the same world (unlinked stays unlinked, a linked agent keeps its phone and since when, a drop
// until recovered is still running, a pairing under way is still pairing with a new QR, channel
// settings stay); no webhook and no secret is written; an unreadable file is said and the seed stands.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorSeed } from '../../../src-main/emulator/index';
import { client, ctl, emulatorClock } from './helpers';

const KEY = 'key-world-file-aaaa';
const seed = (): EmulatorSeed => ({
  teams: [
    {
      id: 't1',
      apiKey: KEY,
      agents: [
        { agentId: 'linked', state: 'connected', phone: '15550100001' },
        { agentId: 'gone', state: 'connected', phone: '15550100002' },
        { agentId: 'down', state: 'connected', phone: '15550100003' },
        { agentId: 'pairing', state: 'unlinked' },
      ],
    },
  ],
});

describe('emulator: agent states kept in a file', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function start(file: string, errors: Error[] = []): Promise<Emulator> {
    const emu = await startEmulator({ clock, seed: seed(), stateFile: file, onStateError: (e) => errors.push(e) });
    cleanup.push(() => emu.close());
    return emu;
  }
  const clock = emulatorClock();

  it('continues the same world after a restart, without webhooks or secrets', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cc-emu-world-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'agents.json');
    const first = await start(file);
    const api = client(first, KEY);
    expect((await ctl(first, 'POST', '/agents/gone/unlink')).status).toBe(200);
    expect((await ctl(first, 'POST', '/agents/down/drop', { seconds: 3600 })).status).toBe(200);
    expect((await api.startSession('pairing')).status).toBeLessThan(300);
    expect((await api.settings('linked', { readReceipts: true })).status).toBe(200);
    expect((await api.webhook('linked', { url: 'https://hooks.example/a' })).status).toBe(200);
    const before = (await api.session('linked')).body;
    await first.close();

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('hooks.example');
    expect(text).not.toMatch(/secret/i);

    const second = await start(file);
    const again = client(second, KEY);
    const state = async (id: string) => ((await again.session(id)).body as { state: string }).state;
    expect(await state('gone')).toBe('unlinked');
    expect(await state('down')).toBe('reconnecting');
    expect(await state('pairing')).toBe('pairing');
    expect((await again.session('linked')).body).toEqual(before);
    expect((await again.settings('linked', { groups: false })).body).toEqual({
      groups: false,
      readReceipts: true,
      deliveryReceipts: false,
    });
    expect((await ctl(second, 'GET', '/state')).body.webhooks).toEqual([]);
  });

  it('an unreadable file is said, and the seed stands until the next change writes it over', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cc-emu-world-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'agents.json');
    await writeFile(file, '{not json');
    const errors: Error[] = [];
    const emu = await start(file, errors);
    expect(errors.map((e) => e.message)).toEqual([`${file}: not JSON`]);
    expect(((await client(emu, KEY).session('gone')).body as { state: string }).state).toBe('connected');
    await ctl(emu, 'POST', '/agents/gone/unlink');
    await emu.close();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      agents: { gone: { link: { kind: 'unlinked' } } },
    });
  });
});
