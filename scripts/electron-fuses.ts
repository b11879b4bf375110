// Electron fuses flipped in the packaged binary (electron-builder's afterPack hook, before signing):
// the app cannot be run as plain Node, takes no NODE_OPTIONS and no --inspect flags, and loads its
// code only from an app.asar whose embedded integrity hash matches. file:// pages get no extra
// privileges (the renderer is served from app://, never file://).
import { join } from 'node:path';
import { FuseV1Options, FuseVersion, flipFuses, type FuseV1Config } from '@electron/fuses';
import type { AfterPackContext } from 'electron-builder';

export const FUSES: FuseV1Config = {
  version: FuseVersion.V1,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
};

// electron-builder's Arch enum: ia32 0, x64 1, armv7l 2, arm64 3, universal 4.
const ARM64 = 3;

/** The Electron binary inside the packed app: the .app bundle on macOS, the .exe on Windows, the executable on Linux. */
export function electronBinaryPath(context: AfterPackContext): string {
  const { appOutDir, electronPlatformName, packager } = context;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return join(appOutDir, `${packager.appInfo.productFilename}.app`);
    case 'win32':
      return join(appOutDir, `${packager.appInfo.productFilename}.exe`);
    default:
      return join(
        appOutDir,
        'executableName' in packager ? String(packager.executableName) : packager.appInfo.productFilename,
      );
  }
}

export async function flipElectronFuses(context: AfterPackContext): Promise<void> {
  // Flipping fuses breaks an arm64 macOS binary's ad-hoc signature: re-sign it ad hoc (real signing follows).
  const resetAdHocDarwinSignature = context.electronPlatformName === 'darwin' && context.arch === ARM64;
  await flipFuses(electronBinaryPath(context), { ...FUSES, resetAdHocDarwinSignature });
}
