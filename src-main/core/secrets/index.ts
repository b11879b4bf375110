export { isKeychainError } from './types';
export type { SecretStore } from './types';
export { MemorySecretStore } from './memory';
export { KeychainSecretStore } from './keychain';
