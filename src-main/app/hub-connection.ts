// The windows' contract, switchable between this machine's companion and a team's hub ("Connect to your
// team's hub" in Settings). The desktop app and the browser host answer hub.status / hub.connect /
// hub.disconnect themselves; every other request goes to the hub while connected (a client of it with the
// member's token: the window never holds the token) and to the local companion otherwise, and the windows
// hear the events of the one they work with. The hub's URL is kept in <config dir>/hub-connection.json, its
// token in the OS keychain; a saved connection is taken up at the next start. The local endpoint (the
// command line) always stays this machine's companion.
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { REQUEST_NAMES, type AnyEvent, type HubConnectionDTO, type RequestName } from '../../src-shared/contract';
import { isRole, roleRefusal } from '../../src-shared/roles';
import { isLoopbackHost } from '../../src-shared/url';
import { ContractError, remoteClient, type ContractClient } from './client';
import { clientContract } from './companion/attach';
import type { CompanionContract } from './contract';
import { NO_HUB, type HubRequests } from './contract/hub';
import { AppError } from './errors';
import type { Implementations } from './handlers';
import type { SecretStore } from './teams';

const HUB_FILE = 'hub-connection.json';
const TOKEN_ACCOUNT = 'hub:member-token';

const HUB_REQUESTS: ReadonlySet<RequestName> = new Set(['hub.status', 'hub.connect', 'hub.disconnect']);

/**
 * A hub's URL as clients use it: its origin (and the path its proxy serves it under); refused when it is not
 * http(s), carries credentials, a query or a fragment, or is plain http beyond this machine (the member token
 * would cross the network readable by anyone on the way).
 */
export function hubOrigin(given: string): string {
  let u: URL;
  try {
    u = new URL(given.trim());
  } catch {
    throw new AppError('validation', 'BAD_HUB_URL', `"${given}" is not a URL: expected https://hub.example.com`, 'url');
  }
  const bad = (message: string) => new AppError('validation', 'BAD_HUB_URL', message, 'url');
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw bad(`The hub's URL must be http(s)://…, not ${u.protocol}`);
  if (u.username !== '' || u.password !== '')
    throw bad("The hub's URL carries a user or password: leave them out (the member token is given on its own).");
  if (u.search !== '' || u.hash !== '') throw bad("The hub's URL has a query or fragment: give its origin.");
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname))
    throw bad(
      `${u.origin} is plain http beyond this machine: the member token would cross the network readable by anyone on the way. Use the https:// URL of the hub's proxy.`,
    );
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** A hub's refusal or silence in words that say what to do. */
function hubError(e: unknown, origin: string): unknown {
  if (e instanceof ContractError && e.dto.code === 'BAD_TOKEN')
    return new AppError(
      'forbidden',
      'HUB_BAD_TOKEN',
      `The hub at ${origin} refused the token: missing, wrong or revoked. Connect again with a new token (Settings → Team hub).`,
    );
  if (e instanceof AppError && e.code === 'COMPANION_GONE')
    return new AppError(
      'network-error',
      'HUB_UNREACHABLE',
      `The hub at ${origin} cannot be reached: ${e.message.replace(/^The companion /, 'it ')}`,
    );
  return e;
}

interface Connected {
  origin: string;
  member: string;
  role: string;
  publicUrl: string | null;
  client: ContractClient;
  off: () => void;
}

type Opened = Pick<Connected, 'client' | 'member' | 'role' | 'publicUrl'>;

/** A client of the hub, checked: it answers as a hub to this token. */
async function openHub(origin: string, token: string): Promise<Opened> {
  const client = remoteClient({ origin, token, timeoutMs: 30_000 });
  try {
    const ping = await client.request('app.ping', {});
    if (!ping.hub) throw new AppError('validation', 'NOT_A_HUB', `${origin} answers, but not as a team's hub.`, 'url');
    return { client, member: ping.hub.member, role: ping.hub.role, publicUrl: ping.hub.publicUrl };
  } catch (e) {
    await client.close();
    throw hubError(e, origin);
  }
}

const savedSchema = z.object({ url: z.string().min(1) });

interface HubSwitchOptions {
  /** Where hub-connection.json is kept (the config folder). */
  configDir: string;
  /** The OS keychain: the member token. */
  secrets: SecretStore;
  logger?: { warn(msg: string): void };
}

/** The windows' contract over `local`, switchable to a team's hub; a saved connection is taken up first. */
export async function hubSwitchable(local: CompanionContract, opts: HubSwitchOptions): Promise<CompanionContract> {
  const file = path.join(opts.configDir, HUB_FILE);
  const listeners = new Set<(e: AnyEvent) => void>();
  const emit = (e: AnyEvent) => {
    for (const fn of listeners) fn(e);
  };
  let hub: Connected | null = null;
  let saved: { url: string; problem: string } | null = null;
  const offLocal = local.events.onAny((e) => {
    if (!hub) emit(e);
  });

  const status = (): HubConnectionDTO =>
    hub
      ? { url: hub.origin, member: hub.member, role: hub.role, publicUrl: hub.publicUrl, problem: null }
      : saved
        ? { url: saved.url, member: null, role: null, publicUrl: null, problem: saved.problem }
        : NO_HUB;

  const use = (origin: string, opened: Opened): void => {
    const events = clientContract(opened.client).events;
    const off = events.onAny((e) => {
      if (hub?.client !== opened.client) return;
      // The member's role changed on the hub: hub.status says the new one before the windows are told to read it.
      if (e.name === 'hub.role') void reread(hub).finally(() => emit(e));
      else emit(e);
    });
    opened.client.onClose((why) => opts.logger?.warn(`the hub's event stream ended (${why})`));
    hub = { origin, ...opened, off };
    saved = null;
  };

  const drop = async (): Promise<void> => {
    const was = hub;
    hub = null;
    if (was) {
      was.off();
      await was.client.close();
    }
  };

  /** The member, role and public URL asked of the hub again (left as they were when it does not answer). */
  const reread = async (at: Connected): Promise<void> => {
    const ping = await at.client.request('app.ping', {}).catch(() => null);
    if (ping?.hub && hub === at) {
      at.member = ping.hub.member;
      at.role = ping.hub.role;
      at.publicUrl = ping.hub.publicUrl;
    }
  };

  // A connection saved by an earlier run: taken up again, or shown with what keeps it from working.
  try {
    const parsed = savedSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success) {
      const url = parsed.data.url;
      try {
        const token = await opts.secrets.get(TOKEN_ACCOUNT);
        if (token === null) saved = { url, problem: 'The token of this hub is not in the keychain: connect again.' };
        else use(url, await openHub(url, token));
      } catch (e) {
        saved = { url, problem: e instanceof Error ? e.message : String(e) };
        opts.logger?.warn(`the saved hub ${url} is not in use: ${saved.problem}`);
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      opts.logger?.warn(`the saved hub connection ${file} could not be read: the windows use this machine's companion`);
  }

  // The hub refused a request for the member's role, though the windows disable what the role (from hub.status)
  // does not allow: the member's role changed in the hub's database, or the hub runs another version of the table.
  // The hub is asked for the role again, so hub.status says the one now held, and the refusal is said in words.
  const roleChanged = async (at: Connected, name: RequestName, e: ContractError): Promise<AppError> => {
    await reread(at);
    const message = isRole(at.role) ? roleRefusal(at.role, name) : e.dto.message;
    return new AppError('forbidden', 'ROLE_FORBIDDEN', message);
  };

  const hubRequests: HubRequests = {
    'hub.status': async () => status(),
    'hub.connect': async ({ url, token }) => {
      const origin = hubOrigin(url);
      const opened = await openHub(origin, token);
      try {
        await opts.secrets.set(TOKEN_ACCOUNT, token);
        await mkdir(opts.configDir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(file, `${JSON.stringify({ url: origin }, null, 2)}\n`, { mode: 0o600 });
      } catch (e) {
        await opened.client.close();
        throw e;
      }
      await drop();
      use(origin, opened);
      return status();
    },
    'hub.disconnect': async () => {
      await drop();
      saved = null;
      await rm(file, { force: true });
      await opts.secrets.delete(TOKEN_ACCOUNT).catch(() => false);
      return status();
    },
  };

  const implementations = {} as Record<RequestName, (args: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES) {
    if (HUB_REQUESTS.has(name)) continue;
    const here = local.implementations[name] as (args: unknown) => Promise<unknown>;
    implementations[name] = async (args) => {
      const at = hub;
      if (!at) return here(args);
      try {
        return await at.client.request(name, args as never);
      } catch (e) {
        if (e instanceof ContractError && e.dto.code === 'ROLE_FORBIDDEN') throw await roleChanged(at, name, e);
        throw hubError(e, at.origin);
      }
    };
  }
  Object.assign(implementations, hubRequests);

  return {
    implementations: implementations as Implementations,
    events: {
      onAny(fn) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    },
    now: local.now,
    setScreenLocked: (locked) => local.setScreenLocked(locked),
    // Lets go of the hub; the local contract stays its owner's to dispose (it closes the companion).
    dispose() {
      offLocal();
      void drop();
    },
  };
}
