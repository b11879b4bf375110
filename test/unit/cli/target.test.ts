// resolveTarget: a command given neither a saved team nor a base URL says both ways to name the service.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src-main/cli/errors';
import { resolveTarget } from '../../../src-main/cli/target';

const io = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  env: {},
  cwd: '/',
  stderrIsTTY: false,
};

describe('resolveTarget', () => {
  it('without --team or --base-url: a usage error naming both', async () => {
    const err = await resolveTarget({ agent: 'agent-connected' }, io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('--team NAME');
    expect((err as Error).message).toContain('--base-url URL');
  });
});
