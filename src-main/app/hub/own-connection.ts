// A connection of its own to the hub's database (not one of the pool's, which serve the requests), for a hot path
// that runs one thing at a time: the ingest's group commits (deliveries.ts), the inbox's batches of messages
// (message-store.ts). Each statement is prepared once (parsed and planned at its first run, by name); the connection
// is opened at first use, and one that breaks is dropped and the next use opens another.
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { serial } from '../serial';
import type { HubDatabase } from './database';

/** Runs a statement (prepared by name) on the connection: its rows. */
type RunStatement = <R>(text: string, values: readonly unknown[]) => Promise<R[]>;

export interface OwnConnection {
  /** A statement alone (its own transaction). Without a URL, on the pool. */
  run: RunStatement;
  /**
   * `begin` (a simple query: it may hold several statements, without parameters, say `begin; select …`), then `work`
   * on the same connection, then commit; rolled back when anything fails. One at a time. Needs the URL.
   */
  transaction<T>(begin: string, work: (run: RunStatement) => Promise<T>): Promise<T>;
  /** Closes the connection (at the replica's stop, once nothing more runs). */
  close(): Promise<void>;
}

/** `db`'s database at `url` (without one, `run` uses the pool and there is no transaction). */
export function ownConnection(db: HubDatabase, url: string | undefined): OwnConnection {
  let client: Promise<pg.Client> | null = null;
  /** The connection `client` holds once it is open. */
  let current: pg.Client | null = null;
  let closed = false;
  const inTurn = serial();
  const drop = (c: pg.Client): void => {
    if (current === c) {
      current = null;
      client = null;
    }
    c.end().catch(() => undefined);
  };
  const open = async (u: string): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: u, connectionTimeoutMillis: 5_000 });
    // A connection lost between statements: dropped (pg needs the listener, or the process dies).
    c.on('error', () => drop(c));
    c.on('end', () => drop(c));
    await c.connect();
    current = c;
    return c;
  };
  const connection = (u: string): Promise<pg.Client> => {
    if (closed) return Promise.reject(new Error('the connection is closed'));
    const opening = (client ??= open(u));
    opening.catch(() => {
      if (client === opening) client = null;
    });
    return opening;
  };
  const names = new Map<string, string>();
  const on =
    (c: pg.Client): RunStatement =>
    async <R>(text: string, values: readonly unknown[]) => {
      let name = names.get(text);
      if (name === undefined) names.set(text, (name = `hub_own_${names.size + 1}`));
      return (await c.query<R & pg.QueryResultRow>({ name, text, values: [...values] })).rows;
    };
  /** A failure: the database refused a statement (the connection stays), or anything else (it is not trusted again). */
  const failed = (c: pg.Client, err: unknown): void => {
    if (!(err instanceof pg.DatabaseError)) drop(c);
  };
  return {
    async run<R>(text: string, values: readonly unknown[]): Promise<R[]> {
      if (url === undefined) return (await db.executeQuery<R>(CompiledQuery.raw(text, [...values]))).rows;
      const c = await connection(url);
      try {
        return await on(c)<R>(text, values);
      } catch (err) {
        failed(c, err);
        throw err;
      }
    },
    transaction<T>(begin: string, work: (run: RunStatement) => Promise<T>): Promise<T> {
      if (url === undefined) return Promise.reject(new Error('a transaction on a connection of its own needs a URL'));
      return inTurn(async () => {
        const c = await connection(url);
        try {
          await c.query(begin);
          const out = await work(on(c));
          await c.query('commit');
          return out;
        } catch (err) {
          failed(c, err);
          if (current === c) await c.query('rollback').catch(() => drop(c));
          throw err;
        }
      });
    },
    async close(): Promise<void> {
      closed = true;
      const c = await client?.catch(() => null);
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
