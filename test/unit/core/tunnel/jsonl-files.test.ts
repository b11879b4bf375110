// The tunnel's refused store and seen file through the one JSON-lines module: what is kept after a
// line torn by a writer that stopped stands whole and is read back.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RefusedStore } from '../../../../src-main/core/tunnel/refused';
import { SeenFile } from '../../../../src-main/core/tunnel/seen';
import type { RefusedRequest } from '../../../../src-main/core/tunnel';
import { tempDir } from './helpers';

const NOW = 1_750_000_000_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
async function folder(): Promise<string> {
  const t = await tempDir('tunnel-jsonl-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const refusal = (id: string): RefusedRequest => ({
  id,
  at: NOW,
  method: 'POST',
  path: '/nope',
  agentId: null,
  from: '127.0.0.1',
  reason: 'not-a-hook',
  detail: 'not a hook',
  status: 404,
  size: 0,
  sha256: '',
  prefix: '',
  headers: {},
});

describe("the tunnel's JSON-lines files", () => {
  it('a refusal kept after a torn line is read back at the next start', async () => {
    const d = await folder();
    await mkdir(join(d, 'refused'), { recursive: true });
    await writeFile(join(d, 'refused', 'refused.jsonl'), `${JSON.stringify(refusal('r1'))}\n{"id":"r2","at":`);
    const store = new RefusedStore({ dataDir: d });
    await store.open();
    store.add(refusal('r3'));
    store.close();
    const again = new RefusedStore({ dataDir: d, readOnly: true });
    await again.open();
    expect(again.list({ limit: 10 }).map((r) => r.id)).toEqual(['r3', 'r1']);
    again.close();
  });

  it('the seen file keeps the keys appended after a torn line', async () => {
    const d = await folder();
    const file = join(d, 'seen.jsonl');
    await writeFile(file, `${JSON.stringify({ agentId: 'a1', key: 'k1', at: NOW })}\n{"agentId":"a1","ke`);
    const seen = new SeenFile(d, 60_000);
    await seen.open(NOW);
    await seen.keep([{ agentId: 'a1', key: 'k2', at: NOW }], NOW);
    const again = new SeenFile(d, 60_000);
    await again.open(NOW);
    expect(again.keys().map((k) => k.key)).toEqual(['k1', 'k2']);
    expect((await readFile(file, 'utf8')).endsWith('\n')).toBe(true);
  });
});
