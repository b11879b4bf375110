// Starting the desktop app when the start may fail. A config file that does not load
// (CONFIG_CORRUPT) is shown in a native message box that offers to set it aside; on that choice it
// is renamed to config.json.corrupt-<time> and the contract is created once more. Any start that
// still fails is logged, shown in an error box (a tray app has no console anyone reads) and ends the
// process with exit code 1; after "Quit" in the message box only the log and the exit remain.
import type * as Electron from 'electron';
import { TeamStore, isTeamStoreError } from '../app/teams';
import { systemClock, type Clock } from '../app/ports';
import { startElectronShell, type ElectronParts, type ShellOptions } from './shell';

type StartupParts = Pick<typeof Electron, 'app' | 'dialog'>;
export type LaunchParts = ElectronParts & Pick<typeof Electron, 'dialog'>;

const SET_ASIDE_BUTTON = 'Set it aside and start afresh';
const QUIT_BUTTON = 'Quit';

export interface RecoveryOptions {
  /** The config folder the contract reads (the one shared with the CLI). */
  configDir: string;
  clock?: Clock;
  /** Where a failed start and a set-aside file are reported (the console). */
  log(message: string): void;
}

/** The person answered the corrupt-config box with Quit: the start ends without a second box. */
class StartDeclined extends Error {
  constructor(readonly reason: Error) {
    super(reason.message, { cause: reason });
    this.name = 'StartDeclined';
  }
}

/**
 * createContract(); when it fails with CONFIG_CORRUPT, asks in a message box whether to set the
 * file aside. Yes: moves it aside (only if it still does not load) and tries once more, whose
 * failure is thrown as it is. Quit: throws StartDeclined. Any other failure is thrown unchanged.
 */
async function createContractRecovering<T>(
  parts: Pick<StartupParts, 'dialog'>,
  opts: RecoveryOptions,
  createContract: () => Promise<T>,
): Promise<T> {
  try {
    return await createContract();
  } catch (err) {
    if (!isTeamStoreError(err) || err.code !== 'CONFIG_CORRUPT') throw err;
    const { response } = await parts.dialog.showMessageBox({
      type: 'error',
      title: 'Channel Companion',
      message: 'Channel Companion cannot load its config file',
      detail: err.message,
      buttons: [SET_ASIDE_BUTTON, QUIT_BUTTON],
      defaultId: 0,
      cancelId: 1,
      noLink: true,
    });
    if (response !== 0) throw new StartDeclined(err);
    const r = await TeamStore.moveAsideIfUnreadable(opts.configDir, opts.clock ?? systemClock);
    if (r.outcome === 'moved')
      opts.log(`the config file ${r.configFile} did not load; it is set aside, kept as ${r.movedTo}`);
    return createContract();
  }
}

/** A start that failed: logged, shown in an error box (not after Quit, whose box said why), exit 1. */
function failStart(parts: StartupParts, err: unknown, log: (message: string) => void): void {
  const message = err instanceof Error ? err.message : 'unknown error';
  log(`Channel Companion failed to start: ${message}`);
  if (!(err instanceof StartDeclined)) parts.dialog.showErrorBox('Channel Companion could not start', message);
  parts.app.exit(1);
}

/** The shell, with the corrupt-config recovery around its contract and failStart for any failure. */
export function launch(electron: LaunchParts, opts: ShellOptions & RecoveryOptions): Promise<void> {
  const createContract = opts.createContract.bind(opts);
  return startElectronShell(electron, {
    ...opts,
    createContract: () => createContractRecovering(electron, opts, createContract),
  }).catch((e: unknown) => failStart(electron, e, opts.log));
}
