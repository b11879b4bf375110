// Where the non-secret config lives, per platform.
import os from 'node:os';
import path from 'node:path';

const APP_DIR_NAME = 'channel-companion';
export const CONFIG_FILE_NAME = 'config.json';

export interface ConfigDirEnv {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  homedir?: string;
}

/**
 * CHANNEL_COMPANION_HOME when set; otherwise
 * Linux & others: $XDG_CONFIG_HOME/channel-companion (default ~/.config/channel-companion),
 * macOS: ~/Library/Application Support/channel-companion, Windows: %APPDATA%\channel-companion.
 */
export function defaultConfigDir(opts: ConfigDirEnv = {}): string {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = opts.homedir ?? os.homedir();
  const p = platform === 'win32' ? path.win32 : path.posix;
  const override = env.CHANNEL_COMPANION_HOME?.trim();
  if (override) return p.resolve(override);
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  if (platform === 'win32') return p.join(env.APPDATA?.trim() || p.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  const xdg = env.XDG_CONFIG_HOME?.trim();
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  return p.join(xdg && p.isAbsolute(xdg) ? xdg : p.join(home, '.config'), APP_DIR_NAME);
}
