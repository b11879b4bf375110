// The hub's webhook registrations, the same on every replica: each registration made through any replica (the
// app's Register, `webhook set`, a restore) is a row of hub_webhook_registrations (migration 0004_deliveries) with
// the member who made it, and a NOTIFY on its commit tells every replica, which keeps each agent's last URL at
// hand (the Messages screen's "Not registered here", the Tunnel screen's URL and "registered here" are read
// without a round trip). The companion's WebhookRegistry port; the embedded companion keeps its data folder's.
import { sql } from 'kysely';
import path from 'node:path';
import type { Logger } from '../../core/ports';
import { hookUrl, type RegistrationLog, type RegistrationRecord } from '../../core/tunnel';
import { shownWebhookUrl } from '../../core/tunnel/register';
import type { HistoryRead } from '../../core/tunnel/registration-history';
import type { WebhookRegistry } from '../companion/types';
import { actingMember } from './acting';
import { HubDatabaseError, type HubDatabase } from './database';
import { listenTo, type Listening } from './notify';

/** The NOTIFY channel a registration (or a team's or agent's registrations forgotten) is announced on. */
const REGISTRATIONS_CHANNEL = 'hub_webhook_registrations';

/** The registration history's file name in a data folder (its folder is where registrations take turns). */
const TURN_FILE = 'webhook-registrations.json';

interface Row {
  team_id: string;
  agent_id: string;
  url: string;
  at: Date;
  member: string | null;
}

interface HubRegistrations extends WebhookRegistry {
  /** Reads the registrations and listens for every replica's next ones. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** How long start() waits for its LISTEN connection at most. */
const LISTEN_WAIT_MS = 5_000;

/** A registration's notification: the replica that made it and the agent (empty for a forget). */
function registeredBy(payload: string): { replica: string; agentId: string } | null {
  try {
    const v = JSON.parse(payload) as unknown;
    if (typeof v !== 'object' || v === null) return null;
    const { replica, agentId } = v as Record<string, unknown>;
    return typeof replica === 'string' && typeof agentId === 'string' ? { replica, agentId } : null;
  } catch {
    return null;
  }
}

const keyOf = (teamId: string | null, agentId: string): string => `${teamId ?? ''}\u0000${agentId}`;

export function hubRegistrations(o: {
  db: HubDatabase;
  /** The database's URL, for the LISTEN connection. */
  url: string;
  replica: string;
  /** The replica's data folder (its registrations take turns there, as the embedded companion's do). */
  dataDir: string;
  /** The hub's --public-url: a registration to its hook is "registered here" on every replica. */
  publicUrl: string | null;
  logger: Logger;
}): HubRegistrations {
  const { db } = o;
  /** Each agent's last registered URL (redacted, as kept), by team and agent. */
  let last = new Map<string, string>();
  let listening: Listening | null = null;
  /** Told of each agent another replica registered. */
  const elsewhere = new Set<(agentId: string) => void>();
  let reading: Promise<void> | null = null;
  let again = false;

  const failure = (what: string, err: unknown): HubDatabaseError =>
    new HubDatabaseError(`the hub's database ${what} (${err instanceof Error ? err.message : String(err)})`);
  const publicHookOf = (agentId: string): string | null =>
    o.publicUrl === null ? null : hookUrl(o.publicUrl, agentId);
  const recordOf = (r: Row): RegistrationRecord => ({
    teamId: r.team_id,
    agentId: r.agent_id,
    url: r.url,
    at: r.at.getTime(),
    // The table keeps the member, not the screen or command: the source is the hub, and who registered.
    source: 'hub',
    ...(r.member !== null ? { registeredBy: r.member } : {}),
    target: (() => {
      const own = publicHookOf(r.agent_id);
      return own !== null && shownWebhookUrl(own, r.agent_id) === r.url ? 'exposure' : 'other';
    })(),
  });
  const rows = async (teamId?: string | null, agentId?: string): Promise<HistoryRead> => {
    let q = db.selectFrom('hub_webhook_registrations').select(['team_id', 'agent_id', 'url', 'at', 'member']);
    if (teamId !== undefined) q = q.where('team_id', '=', teamId ?? '');
    if (agentId !== undefined) q = q.where('agent_id', '=', agentId);
    try {
      const found = await q.orderBy('id', 'desc').execute();
      return { entries: found.map(recordOf), problem: null };
    } catch (err) {
      throw failure('could not read the webhook registrations', err);
    }
  };

  /** Reads each agent's last URL again (one read at a time; a notification during one asks for another). */
  const reload = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const found = await db
            .selectFrom('hub_webhook_registrations')
            .select(['team_id', 'agent_id', 'url'])
            .distinctOn(['team_id', 'agent_id'])
            .orderBy('team_id')
            .orderBy('agent_id')
            .orderBy('id', 'desc')
            .execute();
          last = new Map(found.map((r) => [keyOf(r.team_id, r.agent_id), r.url]));
        } catch (err) {
          o.logger.warn('hub: the webhook registrations could not be read', {
            error: err instanceof Error ? err.message : String(err),
          });
        }
      } while (again);
    })().finally(() => {
      reading = null;
    });
    return reading;
  };

  const history: RegistrationLog = {
    file: path.join(o.dataDir, TURN_FILE),
    list: (teamId, agentId) => rows(teamId, agentId),
    all: () => rows(),
    async append(r) {
      const url = shownWebhookUrl(r.url, r.agentId);
      try {
        await db.transaction().execute(async (trx) => {
          await trx
            .insertInto('hub_webhook_registrations')
            .values({
              ...(r.at !== undefined ? { at: new Date(r.at) } : {}),
              team_id: r.teamId ?? '',
              agent_id: r.agentId,
              url,
              member: actingMember()?.name ?? null,
              replica: o.replica,
            })
            .execute();
          const told = JSON.stringify({ replica: o.replica, agentId: r.agentId });
          await sql`select pg_notify(${REGISTRATIONS_CHANNEL}, ${told})`.execute(trx);
        });
      } catch (err) {
        throw failure('did not record the registration (it was made)', err);
      }
      last.set(keyOf(r.teamId, r.agentId), url);
      return null;
    },
    async forget(teamId, agentId) {
      try {
        await db.transaction().execute(async (trx) => {
          let q = trx.deleteFrom('hub_webhook_registrations').where('team_id', '=', teamId ?? '');
          if (agentId !== undefined) q = q.where('agent_id', '=', agentId);
          await q.execute();
          await sql`select pg_notify(${REGISTRATIONS_CHANNEL}, '')`.execute(trx);
        });
      } catch (err) {
        throw failure('did not forget the registrations', err);
      }
      await reload();
    },
  };

  return {
    history,
    publicUrlOf: (teamId, agentId) => last.get(keyOf(teamId, agentId)) ?? null,
    publicHookOf,
    onRegisteredElsewhere: (fn) => void elsewhere.add(fn),
    async start() {
      await reload();
      // Started once it listens (or, the database slow to answer, after LISTEN_WAIT_MS, listening from when it can).
      let listens: () => void = () => undefined;
      const first = new Promise<void>((resolve) => (listens = resolve));
      const waited = setTimeout(listens, LISTEN_WAIT_MS);
      listening = listenTo(o.url, REGISTRATIONS_CHANNEL, {
        notify: (payload) => {
          void reload();
          const told = registeredBy(payload);
          if (told && told.replica !== o.replica) for (const fn of elsewhere) fn(told.agentId);
        },
        // A registration announced while no connection listened: read them all again.
        connected: () => {
          listens();
          void reload();
        },
        logger: o.logger,
      });
      await first;
      clearTimeout(waited);
    },
    async close() {
      await listening?.close();
      listening = null;
    },
  };
}
