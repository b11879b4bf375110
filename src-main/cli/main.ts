// Entry of the `channel-companion` command. main(argv) returns the exit code (tests call it
// in-process); when this file is run directly it runs main(process.argv) and exits with it.
// bin/channel-companion.mjs imports this module (or its build, out/main/cli.js) and calls main().
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CommanderError } from 'commander';
import { attachTeams, CliTeams } from './teams-context';
import { createContext, type CliDeps } from './context';
import { describeError } from './errors';
import { EXIT } from './exit-codes';
import { processInterrupts, processIO } from './io';
import { Output } from './output';
import { buildProgram } from './program';
import type { SecretStore } from '../app/teams';

export type { CliDeps } from './context';
export type { Target, TargetFlags, TargetResolver } from './target';
export { EXIT } from './exit-codes';

export interface MainOptions extends CliDeps {
  /** Saved teams: config directory instead of --config-dir / defaultConfigDir() (tests). */
  configDir?: string;
  /** Saved teams: secret store instead of the OS keychain (tests: MemorySecretStore). */
  secretStore?: SecretStore;
}

const ZERO_EXIT_CODES = new Set(['commander.helpDisplayed', 'commander.version', 'commander.executeSubCommandAsync']);

/** Runs the CLI with process-style argv (`[node, script, ...args]`) and returns the exit code. */
export async function main(argv: readonly string[] = process.argv, deps: MainOptions = {}): Promise<number> {
  const io = deps.io ?? processIO();
  const interrupts = deps.signal ? null : processInterrupts();
  // Saved teams (`--team`): opened lazily, so commands without it never touch the keychain.
  const teamStore = new CliTeams(io, { configDir: deps.configDir, secretStore: deps.secretStore });
  const ctx = createContext(io, deps.signal ?? interrupts!.signal, {
    ...deps,
    targetResolvers: [teamStore.resolver, ...(deps.targetResolvers ?? [])],
  });
  teamStore.bind(ctx);
  attachTeams(ctx, teamStore);
  try {
    const program = buildProgram(ctx);
    await program.parseAsync([...argv], { from: 'node' });
    return ctx.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander already wrote its message (and the usage) to stderr.
      return ZERO_EXIT_CODES.has(e.code) ? EXIT.ok : EXIT.usage;
    }
    const d = describeError(e);
    new Output(io, false).error(d);
    return d.exitCode;
  } finally {
    await teamStore.close();
    await ctx.closeAll();
    interrupts?.dispose();
  }
}

function isDirectRun(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return (
      import.meta.url === pathToFileURL(realpathSync(script)).href || import.meta.url === pathToFileURL(script).href
    );
  } catch {
    return false;
  }
}

if (isDirectRun()) {
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
}
