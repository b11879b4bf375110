// The saved teams as every shell opens them: the store in the config folder (its keys in the OS keychain),
// where that folder is, its errors, and the one agent lookup.
export {
  TeamStore,
  defaultConfigDir,
  findAgent,
  isTeamStoreError,
  type TeamRecord,
  type TeamStoreError,
} from '../core/teams';
export { configPath } from '../core/teams/config-file';
export { KeychainSecretStore, type SecretStore } from '../core/secrets';
