// The CLI's logger: a warning of the app's core says what its fields say (the port, the error), in human
// output and in --json.
import { describe, expect, it } from 'vitest';
import { cliLogger, Output } from '../../../src-main/cli/output';
import type { CliIO } from '../../../src-main/cli/io';

function io(): { io: CliIO; stderr: () => string } {
  let err = '';
  return {
    io: {
      stdout: { write: () => true },
      stderr: { write: (c: string | Uint8Array) => ((err += String(c)), true) },
      env: {},
      cwd: '/',
      stderrIsTTY: false,
    },
    stderr: () => err,
  };
}

describe('cliLogger', () => {
  it('prints a warning with its fields and its error', () => {
    const o = io();
    cliLogger(new Output(o.io, false)).warn('tunnel: could not listen', {
      port: 47615,
      error: 'the port is taken by node (process 12)',
      nested: { left: 'out' },
    });
    expect(o.stderr()).toBe('warning: tunnel: could not listen (port 47615): the port is taken by node (process 12)\n');
  });

  it('--json: one warning line holding the same words; a warning without fields is its message', () => {
    const o = io();
    const log = cliLogger(new Output(o.io, true));
    log.error('config: the config folder cannot be watched', { error: 'ENOENT' });
    log.warn('plain');
    expect(
      o
        .stderr()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ warning: 'config: the config folder cannot be watched: ENOENT' }, { warning: 'plain' }]);
  });
});
