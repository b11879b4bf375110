export { KeychainError, KeychainLocked, KeychainUnavailable, isKeychainError } from './types';
export type { KeychainErrorKind, SecretStore } from './types';
export { MemorySecretStore } from './memory';
export type { MemoryStoreState } from './memory';
export { KeychainSecretStore, KEYCHAIN_SERVICE, PROBE_ACCOUNT, backendName } from './keychain';
export type { KeychainSecretStoreOptions, KeyringEntry, KeyringEntryFactory, KeyringEntryOptions } from './keychain';
export { classifyKeyringError, redact } from './classify';
