// A command as a client of a team's hub: with CHANNEL_HUB_URL (or --hub URL) and CHANNEL_HUB_TOKEN in the
// environment, every command that talks to a companion asks the hub instead of the local folder's companion,
// within the member's role. The token is never a flag and never printed; it goes only to the hub, and never over
// plain http beyond this machine. The hub's refusals read as what they mean: 401 the token, 403 the role.
import type { PingDTO } from '../../src-shared/contract';
import { ContractError, remoteClient, type ContractClient } from '../app/client';
import { AppError } from '../app/errors';
import { hubOrigin } from '../app/hub-connection';
import type { CliContext } from './context';
import { CliFailure, UsageError } from './errors';
import { EXIT } from './exit-codes';

const HUB_URL_ENV = 'CHANNEL_HUB_URL';
const HUB_TOKEN_ENV = 'CHANNEL_HUB_TOKEN';
export const HUB_FLAG_HELP = `work through a team's hub (default: env ${HUB_URL_ENV}; token: env ${HUB_TOKEN_ENV})`;

/** Who the hub says asks, and where it is reached (app.ping's hub field). */
export type HubIdentity = NonNullable<PingDTO['hub']> & { origin: string };

/** The hub this command works through: --hub, else CHANNEL_HUB_URL; undefined when neither is set. */
export function hubUrlOf(ctx: CliContext): string | undefined {
  const given = ctx.hubFlag ?? ctx.io.env[HUB_URL_ENV];
  return given !== undefined && given.trim() !== '' ? given.trim() : undefined;
}

/** A command that runs a companion on this machine refuses to be pointed at a hub. */
export function refuseHub(ctx: CliContext, command: string): void {
  if (hubUrlOf(ctx) === undefined) return;
  const what = `${command} runs a companion on this machine and never works through a team's hub`;
  throw new UsageError(
    ctx.hubFlag !== undefined
      ? `--hub: ${what}; leave out --hub`
      : `${HUB_URL_ENV} is set, but ${what}: unset ${HUB_URL_ENV} to run it here`,
  );
}

/** The hub's origin as clients use it (app/hub-connection.ts checks it); a bad one is a usage error. */
function hubOriginOf(given: string): string {
  try {
    return hubOrigin(given);
  } catch (e) {
    if (e instanceof AppError) throw new UsageError(`the hub URL: ${e.message}`);
    throw e;
  }
}

/** A hub's answer or silence as the CLI says it: the token, the role, the network. */
function hubFailure(e: unknown, origin: string): unknown {
  if (e instanceof ContractError) {
    if (e.dto.code === 'BAD_TOKEN')
      return new CliFailure(
        `the hub refused the token (${HUB_TOKEN_ENV}): missing, wrong or revoked`,
        EXIT.auth,
        'HUB_BAD_TOKEN',
      );
    if (e.dto.code === 'ROLE_FORBIDDEN')
      return new CliFailure(`the hub refused: ${e.dto.message}`, EXIT.auth, 'ROLE_FORBIDDEN');
    return e;
  }
  if (e instanceof AppError && e.code === 'COMPANION_GONE')
    return new CliFailure(
      `the hub at ${origin} cannot be reached: ${e.message.replace(/^The companion /, 'it ')}`,
      EXIT.service,
      'HUB_UNREACHABLE',
    );
  return e;
}

/** Ties the client's errors to the hub's words. */
function hubClient(client: ContractClient, origin: string): ContractClient {
  return {
    ...client,
    request: async (name, args) => {
      try {
        return await client.request(name, args);
      } catch (e) {
        throw hubFailure(e, origin);
      }
    },
    listening: async () => {
      try {
        await client.listening();
      } catch (e) {
        throw hubFailure(e, origin);
      }
    },
  };
}

/** A client of the hub at `given` (checked: it answers, as a hub, to this member's token). */
export async function connectHub(
  ctx: CliContext,
  given: string,
): Promise<{ client: ContractClient; hub: HubIdentity }> {
  const origin = hubOriginOf(given);
  const token = ctx.io.env[HUB_TOKEN_ENV]?.trim();
  if (!token)
    throw new UsageError(
      `no hub token: set ${HUB_TOKEN_ENV} to your member token (from \`channel-companion hub member add\`); it is never accepted as a flag`,
    );
  const client = hubClient(remoteClient({ origin, token }), origin);
  try {
    const ping = await client.request('app.ping', {});
    if (!ping.hub)
      throw new CliFailure(
        `${origin} answers, but not as a team's hub (no member in its answer): check ${HUB_URL_ENV} / --hub`,
        EXIT.failure,
        'NOT_A_HUB',
      );
    return { client, hub: { ...ping.hub, origin } };
  } catch (e) {
    await client.close();
    throw e;
  }
}

/** Where the service reaches the hub ("self" of --register-url): its public URL; refused when it has none. */
export function hubSelfUrl(hub: HubIdentity): string {
  if (hub.publicUrl === null)
    throw new UsageError(
      `--register-url self: the hub at ${hub.origin} has no public URL (it runs without --public-url), so the service cannot reach it; give the URL itself, or start the hub with --public-url`,
    );
  return hub.publicUrl.replace(/\/+$/, '');
}

/** "the hub at https://hub.example.com as alice (admin)" — for notes. */
export function hubWords(hub: HubIdentity): string {
  return `the hub at ${hub.origin} as ${hub.member} (${hub.role})`;
}
