// The answer streams of one member's request — a chat turn's tokens and its end (`chat.token`, `chat.done`,
// `chat.error`), a send's progress (`send.progress`) — reach that member's clients on every replica, not only
// on the replica that runs the request. They are not rows of hub_events: the replica running the request
// announces them with NOTIFY on the channel `hub_streams` (nothing is stored, so a deleted conversation leaves
// no tokens behind), its chat tokens coalesced per turn every COALESCE_MS; every other replica LISTENs and hands
// them to the streams of that member. Its own clients get the companion's events as they are emitted. A client
// that reconnects mid-turn does not get the tokens it missed: it reads the turn from chat.transcript once done,
// on any replica (the transcripts are in the database, app/hub/chat-transcripts.ts).
import { sql } from 'kysely';
import type { EventName } from '../../../src-shared/contract';
import { silentLogger, type Logger } from '../../core/ports';
import { backoffDelay, type BackoffPolicy } from '../backoff';
import type { ContractEvents } from '../contract';
import { actingMember } from './acting';
import type { HubDatabase } from './database';
import { listenTo } from './notify';

const CHANNEL = 'hub_streams';

/** The events of one request's answer stream: for the member who made the request, on every replica. */
const STREAM_EVENTS: ReadonlySet<EventName> = new Set(['chat.token', 'chat.done', 'chat.error', 'send.progress']);

/** A turn's tokens emitted within this long leave as one `chat.token` (their text joined). */
const COALESCE_MS = 50;
/** A notification's payload must stay under 8,000 bytes: a larger event is sent in parts. */
const NOTIFY_MAX_BYTES = 7_900;
/** Characters of an event's JSON per part (≤ 6 bytes each once escaped: well under the limit). */
const PART_CHARS = 1_200;
/** Parts waiting to be sent while the database is away; beyond this the oldest are dropped. */
const MAX_WAITING = 10_000;
/** Notifications sent in one statement at most. */
const SEND_PAGE = 500;
/** Events being put together from their parts at once (another replica's), at most. */
const MAX_ASSEMBLING = 1_000;
const SEND_RETRY: BackoffPolicy = { baseMs: 100, maxMs: 2_000, jitter: 0.2 };
/** A part that could not be sent for this long is dropped: the stream it belongs to has moved on. */
const GIVE_UP_MS = 10_000;

type LocalEvent = Parameters<Parameters<ContractEvents['onAny']>[0]>[0];

/** One stream event as it travels: the member it is for (null: every member), its name and payload. */
interface StreamEvent {
  member: string | null;
  name: EventName;
  payload: unknown;
}

/** A notification: the replica, the event's sequence number there, the part's index and count, its text. */
interface Part {
  r: string;
  q: number;
  i: number;
  n: number;
  d: string;
}

/** The parts of one event: its JSON in one notification when it fits, else in slices of PART_CHARS. */
function partsOf(replica: string, q: number, e: StreamEvent): string[] {
  const text = JSON.stringify({ member: e.member, name: e.name, payload: e.payload ?? null });
  const whole = JSON.stringify({ r: replica, q, i: 0, n: 1, d: text } satisfies Part);
  if (Buffer.byteLength(whole) <= NOTIFY_MAX_BYTES) return [whole];
  const n = Math.ceil(text.length / PART_CHARS);
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ r: replica, q, i, n, d: text.slice(i * PART_CHARS, (i + 1) * PART_CHARS) } satisfies Part),
  );
}

export interface HubStreams {
  /**
   * The events a replica's clients get: `local` (the replica's own), where a stream event reaches only the
   * streams of the member whose request emitted it, plus the stream events of the other replicas' requests
   * for the member of each stream. A stream's member is the one its request runs as (the hub server opens
   * every event stream as its member).
   */
  events(local: ContractEvents): ContractEvents;
  close(): Promise<void>;
}

/** Whether an event for `target` (null: everyone) goes to a stream of `reader`. */
const forReader = (target: string | null, reader: string | null): boolean => target === null || target === reader;

export function startHubStreams(opts: {
  db: HubDatabase;
  /** The database URL: the replica LISTENs on a connection of its own. */
  url: string;
  /** The replica's companion's contract events (its requests' streams). */
  events: ContractEvents;
  replica: string;
  logger?: Logger;
}): HubStreams {
  const { db, replica } = opts;
  const logger = opts.logger ?? silentLogger;
  let closed = false;
  let seq = 0;

  // ----- announcing this replica's streams -------------------------------------------------------
  const waiting: { text: string; at: number }[] = [];
  let sending: Promise<void> | null = null;
  let dropped = 0;

  const send = async (): Promise<void> => {
    for (let attempt = 0; waiting.length > 0 && !closed;) {
      const page = waiting.slice(0, SEND_PAGE);
      try {
        // One statement, one transaction: its notifications are delivered together, in this order.
        await sql`select pg_notify(${CHANNEL}, p) from unnest(${page.map((w) => w.text)}::text[]) as p`.execute(db);
        waiting.splice(0, page.length);
        attempt = 0;
      } catch (err) {
        attempt++;
        if (attempt === 1)
          logger.warn('hub streams: announcing waits for the database', {
            error: err instanceof Error ? err.message : String(err),
          });
        const stale = Date.now() - GIVE_UP_MS;
        let old = 0;
        while (old < waiting.length && waiting[old]!.at < stale) old++;
        if (old > 0) waiting.splice(0, old);
        await new Promise((r) => setTimeout(r, backoffDelay(SEND_RETRY, attempt)));
      }
    }
  };

  const announce = (e: StreamEvent): void => {
    if (closed) return;
    const at = Date.now();
    for (const text of partsOf(replica, ++seq, e)) waiting.push({ text, at });
    if (waiting.length > MAX_WAITING) {
      waiting.splice(0, waiting.length - MAX_WAITING);
      if (dropped++ % 1000 === 0) logger.warn('hub streams: the database is away; stream events were dropped');
    }
    sending ??= send().finally(() => (sending = null));
  };

  /** Tokens of a turn not announced yet: joined and sent COALESCE_MS after the first. */
  const turns = new Map<string, { member: string | null; text: string; timer: NodeJS.Timeout }>();
  const flushTurn = (turnId: string): void => {
    const t = turns.get(turnId);
    if (!t) return;
    turns.delete(turnId);
    clearTimeout(t.timer);
    announce({ member: t.member, name: 'chat.token', payload: { turnId, token: t.text } });
  };

  const offCompanion = opts.events.onAny((e) => {
    if (!STREAM_EVENTS.has(e.name)) return;
    // Emitted inside the request that runs the turn or the send: its member is the acting one.
    const member = actingMember()?.name ?? null;
    if (e.name === 'chat.token') {
      const { turnId, token } = e.payload;
      const t = turns.get(turnId);
      if (t && t.member === member) t.text += token;
      else {
        if (t) flushTurn(turnId);
        const timer = setTimeout(() => flushTurn(turnId), COALESCE_MS);
        turns.set(turnId, { member, text: token, timer });
      }
      return;
    }
    // A turn's end follows its last tokens.
    if (e.name === 'chat.done' || e.name === 'chat.error') flushTurn(e.payload.turnId);
    announce({ member, name: e.name, payload: e.payload });
  });

  // ----- hearing the other replicas' streams -----------------------------------------------------
  const readers = new Set<(e: StreamEvent) => void>();
  const assembling = new Map<string, { parts: string[]; next: number }>();
  const deliver = (text: string): void => {
    let e: StreamEvent;
    try {
      e = JSON.parse(text) as StreamEvent;
    } catch {
      return;
    }
    if (!STREAM_EVENTS.has(e.name)) return;
    for (const fn of [...readers]) fn(e);
  };
  const heard = (payload: string): void => {
    let p: Part;
    try {
      p = JSON.parse(payload) as Part;
    } catch {
      return;
    }
    if (p.r === replica || typeof p.d !== 'string') return;
    if (p.n === 1) return deliver(p.d);
    // The parts of one event come in order, one after another (one statement sends them).
    const key = `${p.r}\0${p.q}`;
    const a = assembling.get(key) ?? { parts: [], next: 0 };
    if (p.i !== a.next) {
      assembling.delete(key);
      return;
    }
    a.parts.push(p.d);
    a.next++;
    if (a.next < p.n) {
      if (!assembling.has(key)) {
        if (assembling.size >= MAX_ASSEMBLING) assembling.delete(assembling.keys().next().value!);
        assembling.set(key, a);
      }
      return;
    }
    assembling.delete(key);
    deliver(a.parts.join(''));
  };
  const listening = listenTo(opts.url, CHANNEL, { notify: heard, connected: () => undefined, logger });

  return {
    events(local) {
      return {
        onAny(fn) {
          const reader = actingMember()?.name ?? null;
          const offLocal = local.onAny((e) => {
            // A stream event of this replica is for the member of the request that emitted it.
            if (STREAM_EVENTS.has(e.name) && !forReader(actingMember()?.name ?? null, reader)) return;
            fn(e);
          });
          const remote = (e: StreamEvent): void => {
            if (forReader(e.member, reader)) fn({ name: e.name, payload: e.payload } as LocalEvent);
          };
          readers.add(remote);
          return () => {
            offLocal();
            readers.delete(remote);
          };
        },
      };
    },
    async close() {
      offCompanion();
      for (const turnId of [...turns.keys()]) flushTurn(turnId);
      await Promise.race([sending, new Promise((r) => setTimeout(r, 1_000).unref())]);
      closed = true;
      readers.clear();
      await listening.close();
    },
  };
}
