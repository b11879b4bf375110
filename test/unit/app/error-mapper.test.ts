// One root for our errors and one mapper: every error class of the core, the app and the CLI is a
// CompanionError; app/errors.ts turns any of them into the contract's ErrorDTO and into an exit code,
// and the CLI says each the way the app maps it (the tunnel's, the keychain's, the lock's included).
import { ZodError, z } from 'zod';
import { describe, expect, it } from 'vitest';
import { CompanionError } from '../../../src-main/core/errors';
import { AppError, exitCodeOf, toErrorDTO } from '../../../src-main/app/errors';
import { EXIT } from '../../../src-main/app/exit-codes';
import { describeError, CliFailure, Interrupted, UsageError } from '../../../src-main/cli/errors';
import {
  Aborted,
  InvalidRequest,
  KeyRejected,
  NotFound,
  RateLimited,
  ServerError,
} from '../../../src-main/core/api/errors';
import { ShapeError } from '../../../src-main/core/api/parse';
import { TeamStoreError } from '../../../src-main/core/teams';
import { KeychainError, KeychainLocked } from '../../../src-main/core/secrets/types';
import { ReplayError, TunnelError } from '../../../src-main/core/tunnel';
import { LogClosedError } from '../../../src-main/core/tunnel/log-segments';
import { ExposeError } from '../../../src-main/core/expose/errors';
import { LockedError } from '../../../src-main/core/lock-file';

describe('one root', () => {
  it('every error class of ours is a CompanionError, and keeps its own name', () => {
    const ours: Error[] = [
      new AppError('validation', 'X', 'x'),
      new NotFound(),
      new ShapeError('BAD_SHAPE', 'bad'),
      new TeamStoreError('INVALID', 'bad'),
      new KeychainLocked('locked'),
      new TunnelError('not-found', 'gone'),
      new ReplayError('no-target', 'nowhere'),
      new LogClosedError('closed'),
      new ExposeError('no-network', 'offline', 'try later'),
      new LockedError('/d', null, 'held'),
      new UsageError('bad flag'),
      new CliFailure('failed'),
      new Interrupted(),
    ];
    for (const e of ours) {
      expect(e, e.name).toBeInstanceOf(CompanionError);
      expect(e.name).not.toBe('Error');
    }
  });
});

describe('the mapper: ErrorDTO', () => {
  it('our errors keep their words; a foreign one is said generically', () => {
    expect(toErrorDTO(new LogClosedError('the delivery log is closed'))).toEqual({
      kind: 'internal',
      code: 'INTERNAL',
      message: 'the delivery log is closed',
    });
    expect(toErrorDTO(new ShapeError('BAD_SHAPE', 'the answer is not a session'))).toEqual({
      kind: 'internal',
      code: 'BAD_SHAPE',
      message: 'the answer is not a session',
    });
    expect(toErrorDTO(new TypeError('cannot read x of undefined (token abc)')).message).not.toContain('abc');
  });

  it('the lock and the exposure have their contract kinds', () => {
    expect(toErrorDTO(new LockedError('/d', null, 'the data folder is in use by process 12'))).toMatchObject({
      kind: 'invalid-request',
      code: 'DATA_FOLDER_IN_USE',
    });
    expect(toErrorDTO(new ExposeError('keychain', 'no keychain', 'unlock it'))).toMatchObject({
      kind: 'keychain',
      code: 'EXPOSE_KEYCHAIN',
      message: 'no keychain unlock it',
    });
  });
});

describe('the mapper: exit codes', () => {
  it.each([
    [{ kind: 'validation', code: 'INVALID_ARGUMENTS' }, EXIT.usage],
    [{ kind: 'key-rejected', code: 'KEY_REJECTED' }, EXIT.auth],
    [{ kind: 'aborted', code: 'ABORTED' }, EXIT.interrupted],
    [{ kind: 'not-found', code: 'AGENT_NOT_FOUND', status: 404 }, EXIT.service],
    [{ kind: 'not-found', code: 'TUNNEL_NOT_FOUND' }, EXIT.failure],
    [{ kind: 'needs-scan', code: 'NEEDS_SCAN', status: 409 }, EXIT.service],
    [{ kind: 'rate-limited', code: 'RATE_LIMITED', status: 429 }, EXIT.service],
    [{ kind: 'server-error', code: 'SERVER_ERROR', status: 500 }, EXIT.service],
    [{ kind: 'invalid-request', code: 'INVALID_REQUEST', status: 400 }, EXIT.failure],
    [{ kind: 'timeout', code: 'TIMEOUT' }, EXIT.failure],
    [{ kind: 'keychain', code: 'KEYCHAIN' }, EXIT.failure],
    [{ kind: 'internal', code: 'INTERNAL' }, EXIT.failure],
  ] as const)('%j → %i', (dto, code) => {
    expect(exitCodeOf(dto)).toBe(code);
  });
});

describe('the CLI says every error the way the app maps it', () => {
  it("knows the tunnel's errors: a refused host is bad input (2), a missing delivery a failure (1)", () => {
    expect(describeError(new TunnelError('not-loopback', 'the receiver listens on loopback only'))).toMatchObject({
      exitCode: EXIT.usage,
      code: 'TUNNEL_NOT_LOOPBACK',
      kind: 'validation',
    });
    const gone = describeError(new TunnelError('not-found', 'no delivery dlv_1 in the log'));
    expect(gone).toMatchObject({ exitCode: EXIT.failure, code: 'TUNNEL_NOT_FOUND', kind: 'not-found' });
    // No "unknown agent; check --agent" hint: that is about the service's 404.
    expect(gone.message).toBe('no delivery dlv_1 in the log');
  });

  it("knows the keychain's errors", () => {
    expect(describeError(new KeychainLocked('the keychain is locked: unlock it'))).toEqual({
      exitCode: EXIT.failure,
      code: 'KEYCHAIN',
      kind: 'keychain',
      message: 'the keychain is locked: unlock it',
    });
    expect(describeError(new KeychainError('no Secret Service')).kind).toBe('keychain');
  });

  it("knows the team store's and the lock's", () => {
    expect(describeError(new TeamStoreError('KEY_REJECTED', 'key rejected')).exitCode).toBe(EXIT.auth);
    expect(describeError(new TeamStoreError('INVALID', 'bad label')).exitCode).toBe(EXIT.usage);
    expect(describeError(new LockedError('/d', null, 'in use')).code).toBe('DATA_FOLDER_IN_USE');
    expect(describeError(z.object({ a: z.number() }).safeParse({}).error as ZodError).exitCode).toBe(EXIT.usage);
  });

  it("the service's errors: exit codes, hints and the raw answer as before", () => {
    expect(describeError(new KeyRejected())).toMatchObject({ exitCode: EXIT.auth, kind: 'key-rejected' });
    expect(describeError(new NotFound())).toMatchObject({ exitCode: EXIT.service, status: 404 });
    expect(describeError(new NotFound()).message).toContain('check --agent');
    expect(describeError(new RateLimited({ rateLimit: { limit: 60, retryAfter: 5 } }))).toMatchObject({
      exitCode: EXIT.service,
      limit: 60,
      retryAfterSec: 5,
    });
    expect(describeError(new InvalidRequest()).exitCode).toBe(EXIT.failure);
    expect(describeError(new Aborted()).exitCode).toBe(EXIT.interrupted);
    const raw = { status: 502, contentType: 'text/html', bytes: 5, prefix: '<html' };
    expect(describeError(new ServerError({ status: 502, raw })).raw).toEqual(raw);
  });

  it("a foreign error keeps its words on the user's terminal", () => {
    expect(describeError(new Error('EACCES: permission denied, open /x'))).toEqual({
      exitCode: EXIT.failure,
      code: 'ERROR',
      kind: 'error',
      message: 'EACCES: permission denied, open /x',
    });
  });
});
