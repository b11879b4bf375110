// LISTEN on a Postgres channel, on a connection of its own (a pooled one is handed to other queries, which
// would not hear the notifications), made again whenever it drops (a database restart, a network cut), with
// backoff. A notification sent while no connection listened is lost: `connected` runs after every
// (re)connection so the listener reads afresh what it may have missed.
import pg from 'pg';
import type { Logger } from '../../core/ports';
import { backoffDelay, type BackoffPolicy } from '../backoff';

export interface Listening {
  close(): Promise<void>;
}

interface ListenOptions {
  /** Each notification's payload. */
  notify(payload: string): void;
  /** After each connection that now listens (the first one too). */
  connected(): void;
  /** Told once when the connection drops (or cannot be made) and once when it listens again. */
  logger?: Logger;
}

/** Connecting again after a drop: 0.25 s, doubling to 5 s while the database stays away. */
const RECONNECT: BackoffPolicy = { baseMs: 250, maxMs: 5_000, jitter: 0.2 };

export function listenTo(url: string, channel: string, opts: ListenOptions): Listening {
  let closed = false;
  /** Attempts since the last connection that listened. */
  let attempts = 0;
  let current: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let down = false;

  const start = (): void => {
    timer = null;
    if (closed) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    let gone = false;
    const lost = (): void => {
      if (gone) return;
      gone = true;
      if (current === client) current = null;
      void client.end().catch(() => undefined);
      if (!closed && !down) {
        down = true;
        opts.logger?.warn(`hub: no database connection listens for ${channel}; connecting again`);
      }
      if (!closed) {
        timer = setTimeout(start, backoffDelay(RECONNECT, ++attempts));
        timer.unref();
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel === channel) opts.notify(n.payload ?? '');
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${client.escapeIdentifier(channel)}`))
      .then(() => {
        if (gone) return;
        if (closed) {
          gone = true;
          void client.end().catch(() => undefined);
          return;
        }
        current = client;
        attempts = 0;
        if (down) opts.logger?.info(`hub: listening for ${channel} again`);
        down = false;
        opts.connected();
      }, lost);
  };
  start();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const client = current;
      current = null;
      await client?.end().catch(() => undefined);
    },
  };
}
