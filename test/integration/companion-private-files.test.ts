// A companion opening a data folder an older version left with looser modes (sent.jsonl 0644, say):
// every file of it is 0600 and every folder 0700 once it is open, not only the files it creates.
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestCompanion } from '../helpers/companion-suite';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    out.push(full);
    if (e.isDirectory()) await walk(full, out);
  }
  return out;
}

describe('companion: the data folder is private on open', () => {
  it('files an older version made 0644 are 0600 once the companion has opened the folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-private-open-'));
    dirs.push(root);
    const data = join(root, 'data');
    const earlier = [
      'messages/sent.jsonl',
      'webhook-registrations.json',
      'on-call-actions.jsonl',
      'timeline/agent-1.jsonl',
      'chat/transcript.json',
    ];
    for (const f of earlier) {
      await mkdir(join(data, f, '..'), { recursive: true });
      await chmod(join(data, f, '..'), 0o755);
      await writeFile(join(data, f), '', { mode: 0o644 });
      await chmod(join(data, f), 0o644);
    }
    const app = await startTestCompanion(root);
    try {
      for (const f of earlier) expect((await stat(join(data, f))).mode & 0o777).toBe(0o600);
      for (const p of await walk(data)) {
        const s = await stat(p);
        if (s.isDirectory()) expect([p, s.mode & 0o777]).toEqual([p, 0o700]);
        else if (s.isFile()) expect([p, s.mode & 0o777]).toEqual([p, 0o600]);
      }
    } finally {
      await app.close();
    }
  });
});
