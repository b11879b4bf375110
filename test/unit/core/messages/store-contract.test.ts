// The message store's contract (store-contract.ts) over the SQLite adapter: a file in a temp folder.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SqliteMessageStore } from '../../../../src-main/core/messages/sqlite-store';
import { describeMessageStore } from './store-contract';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'messages-contract-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeMessageStore('SQLite', async () => {
  const file = path.join(dir, `messages-${++n}.db`);
  return {
    store: SqliteMessageStore.open({ file }),
    another: async () => SqliteMessageStore.open({ file }),
  };
});
