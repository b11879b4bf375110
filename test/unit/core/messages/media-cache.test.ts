// The media cache of the data folder: private folder and files, a size bound with the least
// recently used entries leaving first, entries that are not whole fetched again, temp folders of a
// crash removed.
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaCache, type ReserveRoom } from '../../../../src-main/core/messages/media-cache';
import { waitFor } from '../../../helpers/wait';

let root: string;
let dir: string;
let now: number;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cc-media-cache-'));
  dir = path.join(root, 'messages', 'media');
  now = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const cache = (maxBytes = 10_000) => new MediaCache({ dir, maxBytes, now: () => now });

/** A fill that reserves room for `size` bytes, writes them (of `fillByte`) and counts its calls. */
function filler(size: number, fillByte = 0x61) {
  const f = async (temp: string, reserve: ReserveRoom) => {
    f.calls++;
    await reserve(size);
    const p = path.join(temp, 'file.bin');
    await writeFile(p, Buffer.alloc(size, fillByte));
    return { path: p, filename: 'photo.png', mimeType: 'image/png' };
  };
  f.calls = 0;
  return f;
}

const bins = async () => (await readdir(dir)).filter((n) => n.endsWith('.bin')).length;

describe('MediaCache', () => {
  it('keeps a file in a 0700 folder as 0600 files, and answers it again without fetching', async () => {
    const c = cache();
    const fill = filler(100);
    const put = await c.put('agent-1', 'wamid.1', now, fill);
    expect(put).toMatchObject({ filename: 'photo.png', mimeType: 'image/png', bytes: 100 });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const n of await readdir(dir)) expect((await stat(path.join(dir, n))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
    const got = await c.get('agent-1', 'wamid.1');
    expect(got).toMatchObject({ filename: 'photo.png', bytes: 100 });
    expect(await readFile(got!.path)).toEqual(Buffer.alloc(100, 0x61));
    expect(await c.get('agent-2', 'wamid.1')).toBeNull();
    expect(fill.calls).toBe(1);
  });

  it('stays within its bound: the least recently used entry leaves first', async () => {
    const c = cache(8_000);
    await c.put('a', 'one', now, filler(3_000));
    now += 1000;
    await c.put('a', 'two', now, filler(3_000));
    now += 1000;
    expect(await c.get('a', 'one')).not.toBeNull(); // used again: now the most recent but one
    now += 1000;
    await c.put('a', 'three', now, filler(3_000));
    expect(await c.get('a', 'two')).toBeNull();
    expect(await c.get('a', 'one')).not.toBeNull();
    expect(await c.get('a', 'three')).not.toBeNull();
    expect(await bins()).toBe(2);
  });

  it('a file larger than the bound is refused before a byte is written; what was kept stays', async () => {
    const c = cache(2_000);
    await c.put('a', 'small', now, filler(300));
    now += 1000;
    const big = filler(1_500);
    await expect(c.put('a', 'big', now, big)).rejects.toMatchObject({ code: 'LARGER_THAN_CACHE' });
    expect(await c.get('a', 'small')).not.toBeNull();
    expect(await bins()).toBe(1);
    expect((await readdir(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a fill that writes without reserving its room (or more than it reserved) is refused and not kept', async () => {
    const c = cache();
    await expect(
      c.put('a', 'm', now, async (temp) => {
        const p = path.join(temp, 'file.bin');
        await writeFile(p, Buffer.alloc(100));
        return { path: p, filename: 'f', mimeType: 'image/png' };
      }),
    ).rejects.toMatchObject({ code: 'NOT_RESERVED' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('the bound holds at every moment: files being written count, later fills wait for room', async () => {
    const bound = 20_000;
    const c = cache(bound);
    await c.put('a', 'old', now, filler(5_000));
    let peak = 0;
    let sampling = true;
    const size = async (d: string): Promise<number> => {
      let n = 0;
      for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(d, e.name);
        n += e.isDirectory()
          ? await size(full)
          : await stat(full).then(
              (st) => st.size,
              () => 0,
            );
      }
      return n;
    };
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await size(dir));
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    /** Reserves 6,000 bytes, then writes them 500 at a time. */
    const slow = async (temp: string, reserve: ReserveRoom) => {
      await reserve(6_000);
      const p = path.join(temp, 'file.bin');
      for (let i = 0; i < 12; i++) {
        await appendFile(p, Buffer.alloc(500, 0x62));
        await new Promise((r) => setTimeout(r, 3));
      }
      return { path: p, filename: 'f.png', mimeType: 'image/png' };
    };
    const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
    const put = await Promise.all(ids.map((id) => c.put('a', id, now, slow)));
    sampling = false;
    await sampler;
    expect(put.every((p) => p.bytes === 6_000)).toBe(true);
    expect(peak).toBeGreaterThan(6_000);
    expect(peak).toBeLessThanOrEqual(bound);
    expect(await size(dir)).toBeLessThanOrEqual(bound);
  });

  it('a fill waiting for room stops waiting when its signal is aborted', async () => {
    const c = cache(10_000);
    let release!: () => void;
    const holding = new Promise<void>((r) => (release = r));
    let reserved!: () => void;
    const firstReserved = new Promise<void>((r) => (reserved = r));
    const first = c.put('a', 'one', now, async (temp, reserve) => {
      await reserve(8_000);
      reserved();
      await holding;
      return filler(10)(temp, async () => undefined);
    });
    // The second asks for its room only once the first holds most of it: it waits (not a race with the clock).
    await firstReserved;
    const abort = new AbortController();
    const fill = filler(5_000);
    const second = c.put('a', 'two', now, fill, abort.signal);
    await waitFor(() => fill.calls === 1, 5_000, 'the second fill asking for room');
    abort.abort(new Error('deadline'));
    await expect(second).rejects.toThrow('deadline');
    release();
    await first;
  });

  it('an entry whose bytes do not match (torn, changed) is removed and fetched again', async () => {
    const c = cache();
    const first = await c.put('a', 'm', now, filler(200));
    await writeFile(first.path, Buffer.alloc(120, 0x61)); // cut short
    expect(await c.get('a', 'm')).toBeNull();
    expect(await readdir(dir)).toEqual([]);
    const again = filler(200);
    await c.put('a', 'm', now, again);
    await writeFile((await c.get('a', 'm'))!.path, Buffer.alloc(200, 0x62)); // same size, other bytes
    expect(await c.get('a', 'm')).toBeNull();
  });

  it('a description that does not parse is not trusted, and the log line quotes none of it', async () => {
    const said: string[] = [];
    const log = (msg: string, fields?: Record<string, unknown>) => void said.push(msg + JSON.stringify(fields ?? {}));
    const c = new MediaCache({ dir, now: () => now, logger: { info: log, warn: log, error: log } });
    const put = await c.put('a', 'm', now, filler(50));
    await writeFile(put.path.replace(/\.bin$/, '.json'), '{"filename":"private-name.pdf",');
    expect(await c.get('a', 'm')).toBeNull();
    expect(await readdir(dir)).toEqual([]);
    expect(said).toHaveLength(1);
    expect(said.join()).not.toContain('private-name');
  });

  it('a failed fill leaves nothing behind; halves of entries and temp folders of a crash go at the next trim', async () => {
    const c = cache();
    await expect(
      c.put('a', 'm', now, async (temp) => {
        await writeFile(path.join(temp, 'partial'), 'x');
        throw new Error('connection reset');
      }),
    ).rejects.toThrow('connection reset');
    expect(await readdir(dir)).toEqual([]);
    await writeFile(path.join(dir, 'orphan.bin'), 'x');
    await writeFile(path.join(dir, 'lonely.json'), '{}');
    await mkdtemp(path.join(dir, '.fill-'));
    await c.put('a', 'kept', now, filler(10));
    expect((await readdir(dir)).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/\.bin$/), expect.stringMatching(/\.json$/)]),
    );
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('retention: files of messages older than the cutoff go, newer ones stay', async () => {
    const c = cache();
    await c.put('a', 'old', now - 100 * 86_400_000, filler(10));
    await c.put('a', 'new', now - 10 * 86_400_000, filler(10));
    await c.removeOlderThan(now - 90 * 86_400_000);
    expect(await c.get('a', 'old')).toBeNull();
    expect(await c.get('a', 'new')).not.toBeNull();
  });

  it('fills at the same time keep each other whole', async () => {
    const c = cache(100_000);
    const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
    const put = await Promise.all(ids.map((id, i) => c.put('a', id, now, filler(500 + i))));
    expect(put.map((p) => p.bytes)).toEqual(ids.map((_, i) => 500 + i));
    for (const [i, id] of ids.entries()) expect((await c.get('a', id))?.bytes).toBe(500 + i);
    expect(await bins()).toBe(12);
  });

  it("removes an agent's entries, by message or all of them", async () => {
    const c = cache();
    await c.put('a', 'one', now, filler(10));
    await c.put('a', 'two', now, filler(10));
    await c.put('b', 'one', now, filler(10));
    await c.remove('a', ['one']);
    expect(await c.get('a', 'one')).toBeNull();
    expect(await c.get('a', 'two')).not.toBeNull();
    await c.remove('a');
    expect(await c.get('a', 'two')).toBeNull();
    expect(await c.get('b', 'one')).not.toBeNull();
  });
});
