// Checking a key / agent against the service before anything is stored.
import { isServiceError } from '../api/errors';
import type { ServiceClient } from '../api/service';
import { isKeychainError } from '../secrets/types';
import { TeamStoreError } from './errors';

/** getSession() of the agent; 401/403 → KEY_REJECTED, 404 → AGENT_NOT_FOUND; other service errors pass through. */
export async function verifyAgent(client: ServiceClient, agentId: string, where: string): Promise<void> {
  try {
    await client.getSession(agentId);
  } catch (err) {
    // ASSUMPTION A-AUTH: 401/403 mean the key was rejected.
    if (isServiceError(err) && err.kind === 'key-rejected') {
      throw new TeamStoreError(
        'KEY_REJECTED',
        `The API key was rejected by ${where} (checked with agent "${agentId}"); nothing was stored.`,
        { cause: err },
      );
    }
    // ASSUMPTION A-NOT-FOUND: 404 means an unknown agent.
    if (isServiceError(err) && err.kind === 'not-found') {
      throw new TeamStoreError(
        'AGENT_NOT_FOUND',
        `Agent "${agentId}" was not found at ${where} with this key; nothing was stored.`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** Wraps keychain failures as TeamStoreError KEYCHAIN, keeping the plain keychain message and the KeychainError as cause. */
export async function keychain<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (isKeychainError(err)) throw new TeamStoreError('KEYCHAIN', err.message, { cause: err });
    throw err;
  }
}
