// A reader of the CLI's output that goes away (`channel-companion emulator --json | head -1`): the command
// stops as if interrupted, without a stack trace, instead of dying of an unhandled EPIPE.
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/spawn-cli';

describe('stdout closed by its reader', () => {
  it('a long-running command stops on its own, with no unhandled error', async () => {
    const run = spawnCli(['emulator', '--json']);
    // The read end is closed before the ready line is written.
    run.child.stdout!.destroy();
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
    const exit = await run.exited;
    clearTimeout(timer);
    expect(exit.signal).toBeNull();
    expect(run.stderr()).not.toContain('EPIPE');
    expect(run.stderr()).not.toContain('Unhandled');
    expect([0, 130]).toContain(exit.code);
  }, 40_000);
});
