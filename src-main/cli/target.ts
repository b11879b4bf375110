// Which service, agent and key a command talks to. The key comes only from the environment
// variable named by --api-key-env (never from a flag value) and is never printed.
//
// EXTENSION HOOK (for `--team NAME`): pass extra TargetResolvers in CliDeps.targetResolvers. Each
// gets the command's flags and may return the parts it knows (e.g. baseUrl + apiKey read from the
// keychain for a saved team). Explicit flags win over resolvers; resolvers win over nothing.
import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from './errors';
import { agentId, envVarName, httpUrl, parseFlags } from './flags';
import type { CliIO } from './io';

export const DEFAULT_API_KEY_ENV = 'CHANNEL_API_KEY';

/** The flags every service command accepts (commander's camelCase names). */
export interface TargetFlags {
  baseUrl?: string;
  agent?: string;
  apiKeyEnv?: string;
  [flag: string]: unknown;
}

export interface Target {
  baseUrl: string;
  agentId: string;
  /** Secret: pass to the client only. */
  apiKey: string;
  /** Where the key came from, safe to show (e.g. "env CHANNEL_API_KEY"). */
  keySource: string;
}

export type TargetResolver = (flags: TargetFlags, io: CliIO) => Promise<Partial<Target> | null>;

export function addTargetOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'service base URL, e.g. http://127.0.0.1:8787')
    .option('--agent <id>', 'agent id (from the dashboard)')
    .option('--api-key-env <name>', 'environment variable holding the team API key', DEFAULT_API_KEY_ENV);
}

const targetFlagsSchema = z.looseObject({
  baseUrl: httpUrl.optional(),
  agent: agentId.optional(),
  apiKeyEnv: envVarName.optional(),
});

export async function resolveTarget(flags: TargetFlags, io: CliIO, resolvers: readonly TargetResolver[] = []): Promise<Target> {
  const f = parseFlags(targetFlagsSchema, flags);
  let found: Partial<Target> = {};
  for (const r of resolvers) {
    const part = await r(flags, io);
    if (part) found = { ...found, ...part };
  }
  const baseUrl = f.baseUrl ?? found.baseUrl;
  const agent = f.agent ?? found.agentId;
  if (!baseUrl) throw new UsageError('--base-url is required (the service base URL)');
  if (!agent) throw new UsageError('--agent is required (the agent id)');

  const envName = f.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const fromEnv = io.env[envName]?.trim();
  let apiKey: string | undefined;
  let keySource: string | undefined;
  if (fromEnv) {
    apiKey = fromEnv;
    keySource = `env ${envName}`;
  } else if (found.apiKey) {
    apiKey = found.apiKey;
    keySource = found.keySource ?? 'resolver';
  }
  if (!apiKey) {
    throw new UsageError(`no API key: set the environment variable ${envName} (or name another with --api-key-env); the key is never accepted as a flag`);
  }
  return { baseUrl, agentId: agent, apiKey, keySource: keySource ?? `env ${envName}` };
}
