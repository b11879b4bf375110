// A data folder is private on open: folders 0700 and files 0600 at every depth, also those an older
// version (or another tool) made with a looser mode; symbolic links are never followed.
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { privateTree } from '../../../../src-main/core/tunnel/private-files';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

describe('privateTree', () => {
  it('sets 0700 folders and 0600 files at every depth; a link and what it points at are left alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-private-'));
    dirs.push(root);
    const data = join(root, 'data');
    const outside = join(root, 'outside.txt');
    await writeFile(outside, 'x', { mode: 0o644 });
    await chmod(outside, 0o644);
    const files = ['messages/sent.jsonl', 'webhook-registrations.json', 'chat/t1.json', 'tunnel/log/000001.jsonl'];
    for (const f of files) {
      await mkdir(join(data, f, '..'), { recursive: true, mode: 0o755 });
      await writeFile(join(data, f), '{}\n', { mode: 0o644 });
      await chmod(join(data, f), 0o644);
      await chmod(join(data, f, '..'), 0o755);
    }
    await symlink(outside, join(data, 'link'));
    await privateTree(data);
    for (const f of files) {
      expect(await mode(join(data, f))).toBe(0o600);
      expect(await mode(join(data, f, '..'))).toBe(0o700);
    }
    expect(await mode(data)).toBe(0o700);
    expect(await mode(outside)).toBe(0o644);
    await expect(privateTree(join(root, 'missing'))).resolves.toBeUndefined();
  });
});
