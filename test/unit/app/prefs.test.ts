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
