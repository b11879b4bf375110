// The companion's preferences file: message notification settings that do not read are named in a
// warning and replaced by their defaults, while the rest of the file stays in force.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PrefsStore } from '../../../src-main/app/companion/prefs';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function withFile(content: unknown) {
  const dir = await mkdtemp(path.join(tmpdir(), 'cc-prefs-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'companion.json'), JSON.stringify(content));
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  return { store: new PrefsStore(dir, logger), logger };
}

const webhooks = [{ teamId: 't1', agentId: 'a1', publicUrl: 'https://hooks.example.com/hooks/a1' }];

describe('preferences: message notifications', () => {
  it('a file without them gets the defaults', async () => {
    const { store } = await withFile({ version: 1, webhooks });
    expect((await store.load()).messageNotifications).toEqual({
      enabled: true,
      showText: true,
      quietHours: { enabled: false, start: '22:00', end: '07:00' },
      muted: [],
    });
  });

  it('kept as saved', async () => {
    const saved = {
      enabled: false,
      showText: false,
      quietHours: { enabled: true, start: '21:30', end: '06:45' },
      muted: [{ teamId: 't1', agentId: 'a1' }],
    };
    const { store } = await withFile({ version: 1, messageNotifications: saved });
    expect((await store.load()).messageNotifications).toEqual(saved);
  });

  it('settings that do not read: a warning naming the field, their defaults, and the rest of the file kept', async () => {
    const { store, logger } = await withFile({
      version: 1,
      notifications: false,
      webhooks,
      messageNotifications: { enabled: 'yes', quietHours: { enabled: true, start: '7pm', end: '07:00' } },
    });
    const p = await store.load();
    expect(p.webhooks).toEqual(webhooks);
    expect(p.notifications).toBe(false);
    expect(p.messageNotifications.enabled).toBe(true);
    expect(logger.warn).toHaveBeenCalledWith(
      'companion: message notification settings invalid; using their defaults',
      expect.objectContaining({ problem: expect.stringMatching(/^enabled: .*; quietHours\.start: /) }),
    );
  });
});

describe('preferences: two apps on one config folder (the desktop app and `serve`)', () => {
  it("each change is made on the file as it is, and each app reads the other's", async () => {
    const { store: desktop } = await withFile({ version: 1 });
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const serve = new PrefsStore(path.dirname(desktop.file), logger);
    await desktop.load();
    await serve.load();
    await desktop.update((p) => ({
      ...p,
      messageNotifications: { ...p.messageNotifications, muted: [{ teamId: 't1', agentId: 'a1' }] },
    }));
    // `serve` read the file before the mute: its change keeps it.
    await serve.update((p) => ({ ...p, webhooks }));
    const fresh = new PrefsStore(path.dirname(desktop.file), logger);
    const onDisk = await fresh.load();
    expect(onDisk.messageNotifications.muted).toEqual([{ teamId: 't1', agentId: 'a1' }]);
    expect(onDisk.webhooks).toEqual(webhooks);
    // The desktop app reads the file again: the webhook is there; nothing new the second time.
    expect(desktop.publicUrlOf('t1', 'a1')).toBeNull();
    expect(await desktop.reload()).toBe(true);
    expect(desktop.publicUrlOf('t1', 'a1')).toBe(webhooks[0]!.publicUrl);
    expect(await desktop.reload()).toBe(false);
  });

  it('a file broken meanwhile keeps what the store has', async () => {
    const { store, logger } = await withFile({ version: 1, webhooks });
    await store.load();
    await writeFile(store.file, '{"version": 1, "webhooks": [', 'utf8');
    expect(await store.reload()).toBe(false);
    expect(store.publicUrlOf('t1', 'a1')).toBe(webhooks[0]!.publicUrl);
    expect(logger.warn).toHaveBeenCalledWith('companion: preferences invalid; the preferences in use are kept', {
      file: store.file,
    });
  });
});
