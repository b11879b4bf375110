// How a command finds the companion of its data folder (--data-dir, else <config dir>/data):
//   1. one runs (the desktop app, `serve`, `up`, or another command): the command attaches to it through the
//      folder's local endpoint and asks it what the screens ask;
//   2. none runs: the command starts the same companion in this process for its duration (and serves the
//      endpoint meanwhile, so a second command attaches to it) — or, where a command only makes sense beside
//      a companion that keeps running, it says how to start one.
import path from 'node:path';
import type { Command } from 'commander';
import type { ContractClient } from '../app/client';
import { attachCompanion } from '../app/companion/attach';
import { ownerWords, type CompanionOwner } from '../app/companion/endpoint';
import type { CompanionOptions } from '../app/companion/companion';
import type { CliContext } from './context';
import { connectHub, HUB_FLAG_HELP, hubUrlOf, hubWords, type HubIdentity } from './hub-client';
import { CliFailure } from './errors';
import { EXIT } from './exit-codes';
import type { Output } from './output';
import { cliLogger } from './output';
import { teamsOf } from './teams-context';

export interface CompanionFlags {
  configDir?: string | undefined;
  dataDir?: string | undefined;
}

export interface CompanionSession {
  readonly client: ContractClient;
  /** attached: another process's companion; in-process: this command started it; hub: a team's hub. */
  readonly where: 'attached' | 'in-process' | 'hub';
  /** The owner attached to (null in-process and on a hub). */
  readonly owner: CompanionOwner | null;
  /** The hub and the member this command works as (null off a hub). */
  readonly hub: HubIdentity | null;
  readonly dataDir: string;
  /** Where the companion started here serves /metrics (--metrics-port), or null (attached: its own settings say). */
  metricsUrl(): Promise<string | null>;
  close(): Promise<void>;
}

export const COMPANION_DATA_DIR_HELP = 'data folder of the companion (default: <config dir>/data)';

/** --config-dir, --data-dir and --hub, as every command that talks to a companion takes them. */
export function addCompanionOptions(cmd: Command): Command {
  return cmd
    .option('--config-dir <dir>', 'where saved teams live (default: the app config folder; env CHANNEL_COMPANION_HOME)')
    .option('--data-dir <dir>', COMPANION_DATA_DIR_HELP)
    .option('--hub <url>', HUB_FLAG_HELP);
}

export function companionFolders(ctx: CliContext, f: CompanionFlags): { configDir: string; dataDir: string } {
  const configDir = teamsOf(ctx).configDir(f.configDir);
  const dataDir = f.dataDir !== undefined ? path.resolve(ctx.io.cwd, f.dataDir) : path.join(configDir, 'data');
  return { configDir, dataDir };
}

/** The running companion of the data folder, or null when none answers there. */
async function attachedSession(dataDir: string): Promise<CompanionSession | null> {
  const attached = await attachCompanion(dataDir);
  if (!attached) return null;
  const { client, owner } = attached;
  return {
    client,
    where: 'attached',
    owner,
    hub: null,
    dataDir,
    metricsUrl: () => Promise.resolve(null),
    close: () => client.close(),
  };
}

export interface ConnectOptions {
  /**
   * With no companion running: 'start' runs one in this process for the command's duration; a string is
   * the command's reason why that makes no sense (the error then says how to start one).
   */
  none: 'start' | string;
  /** Options of a companion started in this process, for this run only (poll intervals, metrics, Alertmanager). */
  companion?: Pick<CompanionOptions, 'poll' | 'metrics' | 'alertmanagerUrl' | 'tunnelPort' | 'startTunnel'>;
}

/** Attaches to the folder's companion, or starts one in this process (see ConnectOptions.none). */
export async function connectCompanion(
  ctx: CliContext,
  out: Output,
  f: CompanionFlags,
  opts: ConnectOptions,
): Promise<CompanionSession> {
  const { configDir, dataDir } = companionFolders(ctx, f);
  const hubUrl = hubUrlOf(ctx);
  if (hubUrl !== undefined) {
    const { client, hub } = await connectHub(ctx, hubUrl);
    return {
      client,
      where: 'hub',
      owner: null,
      hub,
      dataDir,
      metricsUrl: () => Promise.resolve(null),
      close: () => client.close(),
    };
  }
  const attached = await attachedSession(dataDir);
  if (attached) return attached;
  if (opts.none !== 'start')
    throw new CliFailure(
      `no companion runs for the data folder ${dataDir}: ${opts.none}. Start one with \`channel-companion up\` (or \`serve\`, or the desktop app), then run this again`,
      EXIT.failure,
      'NO_COMPANION',
    );
  const { hostCompanion } = await import('../app/companion/hosted');
  let hosted;
  try {
    hosted = await hostCompanion({
      shell: 'command',
      configDir,
      dataDir,
      secrets: teamsOf(ctx).secrets(),
      clock: ctx.clock,
      logger: cliLogger(out),
      ...(ctx.createClient ? { clientFactory: ctx.createClient } : {}),
      // A command's own companion starts the receiver only when the command asks for it (listen does): one
      // that only reads never takes the receiver's port for its few moments.
      startTunnel: false,
      ...opts.companion,
    });
  } catch (e) {
    // Another process took the folder between the look and the start: attach to it after all.
    if (e instanceof Error && e.name === 'FolderOwnedError') {
      const again = await attachedSession(dataDir);
      if (again) return again;
    }
    throw e;
  }
  const client = hosted.client();
  return {
    client,
    where: 'in-process',
    owner: null,
    hub: null,
    dataDir,
    metricsUrl: () => hosted.companion.metricsUrl(),
    async close() {
      await client.close();
      await hosted.close();
    },
  };
}

/** "attached to serve (process 1234, since 10:02)" — for notes. */
export function sessionWords(s: CompanionSession): string {
  if (s.hub) return hubWords(s.hub);
  return s.owner ? `the companion of ${s.dataDir}: ${ownerWords(s.owner)}` : `a companion started for this command`;
}
