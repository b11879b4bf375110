// Desktop installers: `npm run dist` (this platform) or `npm run dist -- --linux|--mac|--win`.
// electron-builder finds this file by its name. The app is out/ (from `npm run build`) plus the
// production dependencies, packed into app.asar; the tray icons ride beside it as resources/tray.
import type { Configuration } from 'electron-builder';
import { flipElectronFuses } from './scripts/electron-fuses';

const config: Configuration = {
  appId: 'app.channel-companion.desktop',
  productName: 'Channel Companion',
  executableName: 'channel-companion',
  directories: { output: 'dist', buildResources: 'build' },
  files: ['out/**/*', '!out/**/*.map', 'package.json'],
  extraResources: [{ from: 'build/tray', to: 'tray', filter: ['*.png'] }],
  asar: true,
  // libsql's native binding (the message database) is loaded from a real file, not from inside the asar.
  asarUnpack: ['**/node_modules/@libsql/*/*.node'],
  // @napi-rs/keyring, @ngrok/ngrok and libsql ship prebuilt N-API binaries (ABI-stable across Node and Electron): nothing to rebuild.
  npmRebuild: false,
  afterPack: flipElectronFuses,
  linux: {
    target: ['AppImage', 'deb'],
    icon: 'build/icon.png',
    category: 'Utility',
    maintainer: 'Channel Companion',
    synopsis: 'Tray companion for the Agent Messaging Channel and Chat API',
  },
  mac: { target: ['dmg'], icon: 'build/icon.png', category: 'public.app-category.developer-tools' },
  dmg: { title: '${productName} ${version}' },
  win: { target: ['nsis'], icon: 'build/icon.png' },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
};

export default config;
