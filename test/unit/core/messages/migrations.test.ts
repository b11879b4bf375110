// Every migration of the message database, from every earlier version: a file built at version N
// (and holding messages, names and settings written at N) opens at the latest version with all of
// it kept and every feature working on it (search finds what was stored before the index existed).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages } from '../../../../src-main/core/messages';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../../src-main/core/messages/sqlite-schema';
import { SqliteMessageStore } from '../../../../src-main/core/messages/sqlite-store';
import type { Message } from '../../../../src-main/core/messages/store';
import { T0 } from './fixtures';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'messages-migrate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const msg = (key: string, text: string, at: number): Message => ({
  key,
  agentId: 'agent-a',
  contact: '15550102000',
  seq: 0,
  at,
  direction: 'in',
  fromMe: false,
  type: 'text',
  text,
  messageId: key,
});

describe('migrations', () => {
  it('are numbered 1, 2, … with nothing skipped', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it.each(Array.from({ length: SCHEMA_VERSION }, (_, v) => v))(
    'from version %i to the latest, keeping everything',
    async (from) => {
      const file = path.join(dir, 'messages', 'messages.db');
      await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(file), { recursive: true }));
      const old = SqliteMessageStore.open({ file, version: from });
      expect(old.version()).toBe(from);
      if (from >= 1) {
        await old.add([{ message: msg('m1', 'an earlier version kept this lighthouse', T0), wins: false }], 0);
        await old.add([{ message: msg('m2', 'and this', T0 + 1000), wins: false }], 0);
        await old.markRead('agent-a', '15550102000');
        await old.setName('15550102000', 'Ada');
        await old.setMeta('retention_days', '45');
      }
      await old.close();

      const m = new Messages({ dataDir: dir, now: () => T0 + 60_000 });
      await m.open([]);
      await m.loaded;
      expect(m.problem()).toBeNull();
      const store = SqliteMessageStore.open({ file, readOnly: true });
      expect(store.version()).toBe(SCHEMA_VERSION);
      await store.close();
      if (from >= 1) {
        expect(m.retentionDays()).toBe(45);
        expect(m.name('15550102000')).toBe('Ada');
        const t = await m.thread('agent-a', '15550102000', { limit: 10 });
        expect(t.messages.map((x) => x.text)).toEqual(['an earlier version kept this lighthouse', 'and this']);
        expect(m.index.unread('agent-a', '15550102000')).toBe(0);
        const hits = await m.search({ text: 'lighthouse', limit: 5 });
        expect(hits.messages.map((h) => h.message.key)).toEqual(['m1']);
      } else expect(await m.contacts()).toEqual([]);
      // And it takes new messages at the latest version.
      await m.sendLog.append({
        at: T0 + 2000,
        teamId: null,
        agentId: 'agent-a',
        to: '+15550102000',
        kind: 'text',
        text: 'after the upgrade',
        via: 'cli',
        messageId: 'm3',
      });
      await m.takeSend();
      expect((await m.search({ text: 'upgrade', limit: 5 })).messages.map((h) => h.message.key)).toEqual(['m3']);
      await m.close();
    },
  );
});
