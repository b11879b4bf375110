// Which service, agent and key a command talks to. The key comes only from the environment
// variable named by --api-key-env (never from a flag value) and is never printed.
//
// EXTENSION HOOK (for `--team NAME`): pass extra TargetResolvers in CliDeps.targetResolvers. Each
// gets the command's flags and may return the parts it knows (e.g. baseUrl + apiKey read from the
// keychain for a saved team). Explicit flags win over resolvers; resolvers win over nothing.
import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from './errors';
import { baseUrlSchema } from '../app/url';
import { insecureKeyProblem } from '../../src-shared/url';
import { agentId, envVarName, parseFlags, teamName } from './flags';
import type { CliIO } from './io';

export const DEFAULT_API_KEY_ENV = 'CHANNEL_API_KEY';

/** The flags every service command accepts (commander's camelCase names). */
export interface TargetFlags {
  baseUrl?: string;
  agent?: string;
  apiKeyEnv?: string;
  /** A saved team (id or label): base URL, agent and key come from it (see teams-context.ts). */
  team?: string;
  configDir?: string;
  /** Send the key over plain http:// to a host other than this machine anyway. */
  allowInsecureHttp?: boolean;
  [flag: string]: unknown;
}

export interface Target {
  baseUrl: string;
  agentId: string;
  /** Secret: pass to the client only. */
  apiKey: string;
  /** Where the key came from, safe to show (e.g. "env CHANNEL_API_KEY"). */
  keySource: string;
  /** The key may go over plain http:// to another machine (--allow-insecure-http, or the saved team's setting). */
  allowInsecureHttp?: boolean;
}

export type TargetResolver = (flags: TargetFlags, io: CliIO) => Promise<Partial<Target> | null>;

export function addTargetOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'service base URL, e.g. http://127.0.0.1:8787')
    .option('--agent <id>', 'agent id (from the dashboard)')
    .option('--api-key-env <name>', 'environment variable holding the team API key', DEFAULT_API_KEY_ENV)
    .option(
      '--team <name>',
      'a saved team (id or label, see `team list`): its base URL, and its API key from the OS keychain',
    )
    .option('--config-dir <dir>', 'where saved teams live (default: the app config folder; env CHANNEL_COMPANION_HOME)')
    .option(
      '--allow-insecure-http',
      'send the API key over plain http:// to a host other than this machine (anyone on the way can read it)',
    );
}

/** A UsageError when the key must not go to `baseUrl` as things stand (nothing is sent then). */
export function checkKeyTransport(baseUrl: string, allowInsecureHttp: boolean | undefined): void {
  const problem = insecureKeyProblem(baseUrl, allowInsecureHttp === true);
  if (problem !== null)
    throw new UsageError(
      `${problem} with --allow-insecure-http (for a saved team: \`team add --allow-insecure-http\`).`,
    );
}

const targetFlagsSchema = z.looseObject({
  baseUrl: baseUrlSchema.optional(),
  agent: agentId.optional(),
  apiKeyEnv: envVarName.optional(),
  team: teamName.optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  allowInsecureHttp: z.boolean().optional(),
});

export async function resolveTarget(
  flags: TargetFlags,
  io: CliIO,
  resolvers: readonly TargetResolver[] = [],
): Promise<Target> {
  const f = parseFlags(targetFlagsSchema, flags);
  // A saved team's key must only ever go to that team's base URL.
  if (f.team !== undefined && f.baseUrl !== undefined)
    throw new UsageError('give either --team or --base-url, not both (a saved team has its own base URL)');
  let found: Partial<Target> = {};
  for (const r of resolvers) {
    const part = await r(flags, io);
    if (part) found = { ...found, ...part };
  }
  const baseUrl = f.baseUrl ?? found.baseUrl;
  // With --team the resolver maps --agent (id or label) to one of the team's agent ids.
  const agent = (f.team !== undefined ? found.agentId : undefined) ?? f.agent ?? found.agentId;
  if (!baseUrl)
    throw new UsageError(
      'name the service: --team NAME (a saved team, see `channel-companion team list`) or --base-url URL with the key in the environment',
    );
  if (!agent) throw new UsageError('--agent is required (the agent id)');

  const envName = f.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const fromEnv = io.env[envName]?.trim();
  let apiKey: string | undefined;
  let keySource: string | undefined;
  if (f.team !== undefined && found.apiKey) {
    // --team: the team's key from the keychain, never a key from the environment.
    apiKey = found.apiKey;
    keySource = found.keySource ?? 'keychain';
  } else if (fromEnv) {
    apiKey = fromEnv;
    keySource = `env ${envName}`;
  } else if (found.apiKey) {
    apiKey = found.apiKey;
    keySource = found.keySource ?? 'resolver';
  }
  if (!apiKey) {
    throw new UsageError(
      `no API key: set the environment variable ${envName} (or name another with --api-key-env); the key is never accepted as a flag`,
    );
  }
  const allowInsecureHttp = f.allowInsecureHttp === true || (f.team !== undefined && found.allowInsecureHttp === true);
  checkKeyTransport(baseUrl, allowInsecureHttp);
  return { baseUrl, agentId: agent, apiKey, keySource: keySource ?? `env ${envName}`, allowInsecureHttp };
}
