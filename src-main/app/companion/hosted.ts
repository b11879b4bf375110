// Starting a companion, the one way every shell does it (the desktop app, `serve`, `up`, and a command that
// finds none running): take the data folder (a second companion on it is refused, naming the owner), compose
// the companion, implement the contract over it, and serve the contract on the folder's local endpoint so
// every other window, tab and command attaches to this one.
import path from 'node:path';
import { defaultConfigDir } from '../../core/teams';
import { createCompanion, type Companion, type CompanionOptions } from './companion';
import { implementContract, type CompanionContract, type ContractOptions } from '../contract';
import { createHandlers, type Handlers } from '../handlers';
import { localClient, type ContractClient } from '../client';
import { ownDataFolder, type CompanionShell } from './endpoint';

export interface HostedCompanion {
  readonly companion: Companion;
  readonly contract: CompanionContract;
  readonly handlers: Handlers;
  /** The local endpoint's socket (or pipe). */
  readonly socket: string;
  /** A client of this companion in this process (what a command that started it talks to). */
  client(): ContractClient;
  /** The browser host started or moved: written down so clients can name it. */
  setBrowserOrigin(origin: string | null): Promise<void>;
  close(): Promise<void>;
}

export interface HostOptions extends CompanionOptions {
  shell: CompanionShell;
  /** How it was started, for the words that name it ("channel-companion up"). */
  command?: string;
  contract?: ContractOptions;
}

/** The data folder a companion with these options owns (as createCompanion computes it). */
function companionDataDir(opts: Pick<CompanionOptions, 'configDir' | 'dataDir'>): string {
  return path.resolve(opts.dataDir ?? path.join(opts.configDir ?? defaultConfigDir(), 'data'));
}

export async function hostCompanion(opts: HostOptions): Promise<HostedCompanion> {
  const { shell, command, contract: contractOpts, ...companionOpts } = opts;
  const dataDir = companionDataDir(companionOpts);
  const folder = await ownDataFolder(dataDir, companionOpts.clock ? () => companionOpts.clock!.now() : Date.now);
  let companion: Companion;
  try {
    companion = await createCompanion({ ...companionOpts, dataDir });
  } catch (e) {
    await folder.release();
    throw e;
  }
  const contract = implementContract(companion, contractOpts);
  const handlers = createHandlers(contract.implementations);
  let socket: string;
  try {
    socket = await folder.serve({ handlers, events: contract.events, shell, command: command ?? null });
  } catch (e) {
    contract.dispose();
    await companion.close();
    await folder.release();
    throw e;
  }
  let closed = false;
  return {
    companion,
    contract,
    handlers,
    socket,
    client: () => localClient(handlers, contract.events),
    setBrowserOrigin: (origin) => folder.setBrowserOrigin(origin),
    async close() {
      if (closed) return;
      closed = true;
      contract.dispose();
      await companion.close();
      await folder.release();
    },
  };
}
