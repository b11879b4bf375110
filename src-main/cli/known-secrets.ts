// Every key and secret a CLI run knows, so that a program it starts (the tunnel program) is handed
// no variable holding one: the values of the variables named for keys and secrets (CHANNEL_API_KEY
// always), a signing secret given on the command line, and every API key and signing secret the
// saved teams keep in the keychain (teamSecrets). The ngrok authtoken is added by the
// exposure itself.
import { existsSync } from 'node:fs';
import { configPath } from '../app/teams';
import { teamSecrets } from '../app/expose';
import { teamsOf } from './teams-context';
import type { CliContext } from './context';
import { DEFAULT_API_KEY_ENV } from './target';

export async function knownSecrets(
  ctx: CliContext,
  o: { envNames: ReadonlyArray<string | undefined>; explicit?: string | undefined; configDir?: string | undefined },
): Promise<string[]> {
  const out: string[] = [];
  for (const name of new Set([DEFAULT_API_KEY_ENV, ...o.envNames])) {
    const v = name === undefined ? undefined : ctx.io.env[name];
    if (v) out.push(v);
  }
  if (o.explicit !== undefined) out.push(o.explicit);
  const ca = teamsOf(ctx);
  // No saved config: no team, and nothing is written just to find that out.
  if (existsSync(configPath(ca.configDir(o.configDir)))) {
    const teamStore = await ca.open(o.configDir).catch(() => null);
    if (teamStore) out.push(...(await teamSecrets(teamStore)));
  }
  return out;
}
