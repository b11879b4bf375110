import { describe, expect, it } from 'vitest';
import { defaultConfigDir } from '../../../../src-main/core/teams';

describe('defaultConfigDir', () => {
  it('uses CHANNEL_COMPANION_HOME over everything', () => {
    expect(
      defaultConfigDir({
        env: { CHANNEL_COMPANION_HOME: '/srv/cc', XDG_CONFIG_HOME: '/x' },
        platform: 'linux',
        homedir: '/home/u',
      }),
    ).toBe('/srv/cc');
  });
  it('Linux: XDG_CONFIG_HOME, else ~/.config; a relative XDG_CONFIG_HOME is ignored', () => {
    expect(defaultConfigDir({ env: { XDG_CONFIG_HOME: '/cfg' }, platform: 'linux', homedir: '/home/u' })).toBe(
      '/cfg/channel-companion',
    );
    expect(defaultConfigDir({ env: {}, platform: 'linux', homedir: '/home/u' })).toBe(
      '/home/u/.config/channel-companion',
    );
    expect(defaultConfigDir({ env: { XDG_CONFIG_HOME: 'rel' }, platform: 'linux', homedir: '/home/u' })).toBe(
      '/home/u/.config/channel-companion',
    );
  });
  it('macOS: ~/Library/Application Support', () => {
    expect(defaultConfigDir({ env: { XDG_CONFIG_HOME: '/cfg' }, platform: 'darwin', homedir: '/Users/u' })).toBe(
      '/Users/u/Library/Application Support/channel-companion',
    );
  });
  it('Windows: %APPDATA%', () => {
    expect(
      defaultConfigDir({
        env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
        platform: 'win32',
        homedir: 'C:\\Users\\u',
      }),
    ).toBe('C:\\Users\\u\\AppData\\Roaming\\channel-companion');
  });
});
