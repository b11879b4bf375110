export { KeychainError, KeychainLocked, KeychainUnavailable, isKeychainError } from './types';
export type { SecretStore } from './types';
export { MemorySecretStore } from './memory';
export { KeychainSecretStore, PROBE_ACCOUNT } from './keychain';
export type { KeyringEntry, KeyringEntryOptions } from './keychain';

