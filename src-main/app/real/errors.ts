// Core errors that do not carry a contract kind, turned into AppErrors with one (their messages are
// already plain and secret-free). Service errors and AppErrors pass through unchanged.
import { isAccountsError, type AccountsErrorCode } from '../../core/accounts';
import { isKeychainError } from '../../core/secrets';
import { ReplayError, TunnelError } from '../../core/tunnel';
import type { ErrorKind } from '../../../src-shared/contract';
import { AppError } from '../errors';

const ACCOUNTS_KINDS: Record<AccountsErrorCode, ErrorKind> = {
  KEY_REJECTED: 'unauthorized',
  AGENT_NOT_FOUND: 'not-found',
  DUPLICATE: 'validation',
  NOT_FOUND: 'not-found',
  INVALID: 'validation',
  CONFIG_CORRUPT: 'internal',
  KEYCHAIN: 'keychain',
};

const FIELDS = ['label', 'baseUrl', 'apiKey', 'agents'];

/** "Invalid team: baseUrl: must be…" → "baseUrl"; "agents.0.agentId: …" → "agents". */
function fieldOf(message: string): string | undefined {
  const m = /:\s*([A-Za-z]+)(?:\.[\w.]+)?:/.exec(message);
  return m && m[1] && FIELDS.includes(m[1]) ? m[1] : undefined;
}

export function toAppError(e: unknown): unknown {
  if (isAccountsError(e)) {
    const kind = ACCOUNTS_KINDS[e.code];
    return new AppError(kind, e.code, e.message, kind === 'validation' ? fieldOf(e.message) : undefined);
  }
  if (isKeychainError(e)) return new AppError('keychain', 'KEYCHAIN', e.message);
  if (e instanceof TunnelError) {
    const kind: ErrorKind = e.code === 'not-found' ? 'not-found' : e.code === 'not-loopback' ? 'validation' : e.code === 'storage-failed' ? 'internal' : 'invalid-request';
    return new AppError(kind, `TUNNEL_${e.code.toUpperCase().replace(/-/g, '_')}`, e.message);
  }
  if (e instanceof ReplayError) {
    return new AppError(e.code === 'not-found' ? 'not-found' : 'invalid-request', `REPLAY_${e.code.toUpperCase().replace(/-/g, '_')}`, e.message);
  }
  return e;
}

/** Runs `fn`, rethrowing core errors with a contract kind. */
export async function guard<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toAppError(e);
  }
}
