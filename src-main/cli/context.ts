// The shared context every command gets: IO, the interrupt signal, the clock, output modes, the
// target resolution hook and a client factory whose clients are closed when the command ends.
import type { Command } from 'commander';
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from '../app/service';
import { systemClock, type Clock } from '../app/ports';
import { describeError, UsageError } from './errors';
import type { CliIO } from './io';
import { Output } from './output';
import { resolveTarget, type Target, type TargetFlags, type TargetResolver } from './target';

export interface CliDeps {
  io?: CliIO;
  /** Aborted on Ctrl-C / SIGTERM. Default: the process's signals. */
  signal?: AbortSignal;
  clock?: Clock;
  createClient?: (opts: ServiceClientOptions) => ServiceClient;
  /** Extra target resolvers (the `--team` hook), tried before the flags. */
  targetResolvers?: TargetResolver[];
  /** Poll interval of `pair` (ms); default 1000. */
  pairPollMs?: number;
}

export interface CliContext {
  readonly io: CliIO;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly pairPollMs: number;
  exitCode: number;
  /** The running command's --hub URL, when it was given (CHANNEL_HUB_URL otherwise; see hub-client.ts). */
  hubFlag: string | undefined;
  output(json: boolean): Output;
  /** Service, agent and key for a command; extend with CliDeps.targetResolvers. */
  resolveTarget(flags: TargetFlags): Promise<Target>;
  /** A service client for the target; closed when main() returns. */
  client(target: Target): ServiceClient;
  /** The service clients' factory when one was given (tests), for a companion started in this process. */
  readonly createClient?: (opts: ServiceClientOptions) => ServiceClient;
  closeAll(): Promise<void>;
}

export function createContext(io: CliIO, signal: AbortSignal, deps: CliDeps): CliContext {
  const clients: ServiceClient[] = [];
  const factory = deps.createClient ?? createServiceClient;
  return {
    io,
    signal,
    clock: deps.clock ?? systemClock,
    pairPollMs: deps.pairPollMs ?? 1000,
    ...(deps.createClient ? { createClient: deps.createClient } : {}),
    exitCode: 0,
    hubFlag: undefined,
    output: (json) => new Output(io, json),
    resolveTarget: (flags) => resolveTarget(flags, io, deps.targetResolvers ?? []),
    client(target) {
      const opts: ServiceClientOptions = { baseUrl: target.baseUrl, apiKey: target.apiKey };
      if (target.allowInsecureHttp) opts.allowInsecureHttp = true;
      if (deps.clock) opts.clock = deps.clock;
      const c = factory(opts);
      clients.push(c);
      return c;
    },
    async closeAll() {
      const all = clients.splice(0);
      await Promise.allSettled(all.map((c) => c.close()));
    },
  };
}

/** "deliveries list": the command's words after the program's name. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

type ActionFn = (opts: Record<string, unknown>, out: Output, cmd: Command) => Promise<number | void>;

/**
 * Installs a command's action: validates nothing itself, but turns whatever the action throws into
 * an error line on stderr and the right exit code (a UsageError also prints the command's usage at a
 * terminal, and where to find it elsewhere).
 */
export function defineAction(ctx: CliContext, cmd: Command, fn: ActionFn): Command {
  return cmd.action(async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.opts();
    const out = ctx.output(opts.json === true);
    ctx.hubFlag = typeof opts.hub === 'string' ? opts.hub : undefined;
    try {
      ctx.exitCode = (await fn(opts, out, command)) ?? 0;
    } catch (e) {
      const d = describeError(e);
      out.error(d);
      // The whole usage helps a person at a terminal; a script's log gets one line pointing at it.
      if (e instanceof UsageError) {
        if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`\n${command.helpInformation()}`);
        else if (!out.json) ctx.io.stderr.write(`(see: channel-companion ${commandPath(command)} --help)\n`);
      }
      ctx.exitCode = d.exitCode;
    }
  });
}
