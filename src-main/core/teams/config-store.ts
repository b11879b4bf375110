// Where the teams and the app settings (the ConfigFile) live: <configDir>/config.json by default, or a
// shared store (the hub's database) that any number of processes read and write at once. TeamStore reads
// it again before every change and writes with the version it read, so a change made meanwhile elsewhere
// is never lost.
import { readConfig, writeConfig } from './config-file';
import type { ConfigFile } from './schema';

interface StoredConfig {
  config: ConfigFile;
  /** What `write` compares: the config's version when it was read. */
  version: number;
}

export interface ConfigStore {
  /** The config and its version, or null when none was written yet. Throws TeamStoreError CONFIG_CORRUPT. */
  read(): Promise<StoredConfig | null>;
  /**
   * Writes `config` when the stored version is still `expected` (null: none was written yet) and answers the
   * new version; null when another writer came first (nothing was written: read again and redo the change).
   */
  write(config: ConfigFile, expected: number | null): Promise<number | null>;
  /**
   * Calls `changed` when another process changed the config (within about a second) and answers the stop.
   * Absent: the companion's watch of the config folder (app/companion/config-watch.ts) sees the writes.
   */
  watch?(changed: () => void): () => Promise<void>;
}

/**
 * <configDir>/config.json. Its version is always 0 and a write always lands: TeamStore reads the file again
 * right before it writes, and the file has no way to compare and swap across processes.
 */
export function configFileStore(configDir: string): ConfigStore {
  return {
    async read() {
      const config = await readConfig(configDir);
      return config && { config, version: 0 };
    },
    async write(config) {
      await writeConfig(configDir, config);
      return 0;
    },
  };
}
