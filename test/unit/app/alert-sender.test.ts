import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertSender } from '../../../src-main/app/companion/alert-sender';
import { systemClock, type Logger } from '../../../src-main/core/ports';
import { waitFor } from '../../helpers/wait';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'alert-sender-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sender(dataDir: string, warnings: string[] = []) {
  const changes = { n: 0 };
  const logger: Logger = { info() {}, warn: (m) => warnings.push(m), error() {} };
  const s = new AlertSender({ dataDir, clock: systemClock, logger, onChange: () => changes.n++, retryMs: 20 });
  return { s, changes };
}

describe('AlertSender', () => {
  it('one of two on a data folder posts; the other names it, and takes over once it stops', async () => {
    const a = sender(dir);
    const b = sender(dir);
    await a.s.start();
    await b.s.start();
    expect(a.s.here()).toBe(true);
    expect(a.s.elsewhere()).toBeNull();
    expect(b.s.here()).toBe(false);
    expect(b.s.elsewhere()).toMatchObject({ pid: process.pid });
    const told = b.changes.n;
    await a.s.close();
    await waitFor(() => b.s.here(), 2000);
    expect(b.s.elsewhere()).toBeNull();
    expect(b.changes.n).toBe(told + 1);
    await b.s.close();
  });

  it('a lock that cannot be taken at all names no other app: this one posts, said once in the log', async () => {
    const file = join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    const warnings: string[] = [];
    const c = sender(file, warnings);
    await c.s.start();
    expect(c.s.here()).toBe(true);
    expect(c.s.elsewhere()).toBeNull();
    await waitFor(() => c.changes.n > 0, 1000);
    // Tried again meanwhile, still not said again.
    const tries = Date.now() + 60;
    await waitFor(() => Date.now() > tries, 1000);
    expect(warnings).toEqual(['alerts: the alert sender lock could not be taken; this app posts the alerts']);
    await c.s.close();
  });
});
