// A chat turn's stream frames as received (`chat.frames`, the raw view) on every replica. The replica running a
// turn keeps its frames in memory; so that a window whose requests reach another replica (a balancer, a
// reconnect) gets the same answer, that replica also writes them to Postgres (`hub_chat_turns`,
// `hub_chat_frames`, migration 0011_chat_frames, unlogged tables: no WAL): the frames new since its last write as
// one row, at most one statement per turn every WRITE_EVERY_MS while the turn streams (never one per token), and
// the last at its end. What is kept is bounded as the replica bounds it (the first frames and the latest,
// core/api/raw.ts), and only for the turns in flight and each chat's last turn, for KEEP_ENDED_MS after it ends;
// deleting the conversation deletes them.
// `chat.frames` answers from the replica's own memory when it ran the turn, else from the database.
import { sql } from 'kysely';
import type { ChatFramesDTO, RawFrameDTO } from '../../../src-shared/contract';
import { FRAMES_KEPT } from '../../core/api/raw';
import { deletionWhileRunning } from '../../core/chat';
import { silentLogger, type Logger } from '../../core/ports';
import type { ContractEvents } from '../contract';
import { toErrorDTO } from '../errors';
import { createHandlers, type Handlers, type Implementations } from '../handlers';
import type { HubDatabase } from './database';

/** A streaming turn's new frames are written at most this often (its tokens' own coalescing, app/hub/streams.ts). */
const WRITE_EVERY_MS = 50;
/** How long an ended turn's frames stay (each chat's last turn only). */
const KEEP_ENDED_MS = 10 * 60_000;
/** A turn in flight whose replica has not written for this long (it died) is let go. */
const KEEP_STALLED_MS = 10 * 60_000;
const PRUNE_EVERY_MS = 60_000;
/** A turn in flight another replica wrote within this long is running there: its chat is not deleted meanwhile. */
const RUNNING_ELSEWHERE_MS = 60_000;

/** A turn this replica runs: the chat it belongs to and how many of its frames are written. */
interface Recording {
  agentId: string;
  userId: string;
  written: number;
  timer: NodeJS.Timeout | null;
  writing: Promise<void> | null;
  again: boolean;
  ended: boolean;
}

/** Each kept frame of a snapshot with its place in the stream (the first ones, then the latest after a gap). */
function placed(snapshot: ChatFramesDTO): Array<{ seq: number; frame: RawFrameDTO }> {
  return snapshot.frames.map((frame, i) => ({
    seq: snapshot.omitted > 0 && i >= FRAMES_KEPT.head ? i + snapshot.omitted : i,
    frame,
  }));
}

/** Frames one after another in the stream, as one row: the first one's place and the frames. */
function runsOf(frames: Array<{ seq: number; frame: RawFrameDTO }>): Array<{ seq: number; frames: RawFrameDTO[] }> {
  const runs: Array<{ seq: number; frames: RawFrameDTO[] }> = [];
  for (const f of frames) {
    const last = runs.at(-1);
    if (last && last.seq + last.frames.length === f.seq) last.frames.push(f.frame);
    else runs.push({ seq: f.seq, frames: [f.frame] });
  }
  return runs;
}

/** Whether the frame at `seq` of a stream of `total` frames is one of those kept (the first ones, the latest). */
const kept = (seq: number, total: number): boolean => seq < FRAMES_KEPT.head || seq >= total - FRAMES_KEPT.tail;

/**
 * Writes what is new of a turn's frames (`written`: how many were received when it last wrote) in one statement:
 * the turn's row, its new frames as one row (two when they straddle the middle left out), and the rows wholly in
 * that middle deleted. At its end (`snapshot.live` false), the chat's other ended turns go. Returns the frames
 * received so far (the next call's `written`).
 */
async function writeTurnFrames(
  db: HubDatabase,
  turn: { turnId: string; agentId: string; userId: string; replica: string },
  snapshot: ChatFramesDTO,
  written: number,
): Promise<number> {
  const total = snapshot.frames.length + snapshot.omitted;
  const fresh = runsOf(placed(snapshot).filter((f) => f.seq >= written));
  const ended = !snapshot.live;
  await sql`
    with turn as (
      insert into hub_chat_turns (turn_id, agent_id, user_id, replica, live, total)
      values (${turn.turnId}, ${turn.agentId}, ${turn.userId}, ${turn.replica}, ${snapshot.live}, ${total})
      on conflict (turn_id) do update set live = excluded.live, total = excluded.total, updated_at = now()
    ),
    added as (
      insert into hub_chat_frames (turn_id, seq, frames)
      select ${turn.turnId}, x.seq, x.frames
      from jsonb_to_recordset(${JSON.stringify(fresh)}::jsonb) as x(seq integer, frames jsonb)
      on conflict (turn_id, seq) do nothing
    ),
    dropped as (
      delete from hub_chat_frames
      where turn_id = ${turn.turnId} and seq >= ${FRAMES_KEPT.head}
        and seq + jsonb_array_length(frames) <= ${total - FRAMES_KEPT.tail}
    ),
    older as (
      delete from hub_chat_turns
      where ${ended} and agent_id = ${turn.agentId} and user_id = ${turn.userId}
        and turn_id <> ${turn.turnId} and not live
      returning turn_id
    )
    delete from hub_chat_frames where turn_id in (select turn_id from older)`.execute(db);
  return total;
}

/** A turn's frames as the database keeps them; null when it keeps none of that turn. */
async function readTurnFrames(db: HubDatabase, turnId: string): Promise<ChatFramesDTO | null> {
  const turn = await db
    .selectFrom('hub_chat_turns')
    .select(['live', 'total'])
    .where('turn_id', '=', turnId)
    .executeTakeFirst();
  if (!turn) return null;
  const rows = await db
    .selectFrom('hub_chat_frames')
    .select(['seq', 'frames'])
    .where('turn_id', '=', turnId)
    .orderBy('seq')
    .execute();
  // A row that straddles the middle left out keeps the frames of it it was written with: they are not answered.
  const frames = rows.flatMap((r) => (r.frames as RawFrameDTO[]).filter((_, i) => kept(r.seq + i, turn.total)));
  return { frames, omitted: Math.max(0, turn.total - frames.length), live: turn.live, known: true };
}

/** Deletes what is kept of one turn. */
async function forgetTurn(db: HubDatabase, turnId: string): Promise<void> {
  await sql`
    with gone as (delete from hub_chat_turns where turn_id = ${turnId} returning turn_id)
    delete from hub_chat_frames where turn_id in (select turn_id from gone)`.execute(db);
}

/** Whether another replica runs a turn of this chat now (it wrote the turn lately and has not ended it). */
async function runningElsewhere(db: HubDatabase, replica: string, agentId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('hub_chat_turns')
    .select('turn_id')
    .where('agent_id', '=', agentId)
    .where('user_id', '=', userId)
    .where('live', '=', true)
    .where('replica', '<>', replica)
    .where(sql<boolean>`updated_at > now() - make_interval(secs => ${RUNNING_ELSEWHERE_MS / 1000})`)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes what is kept of one chat's turns (its conversation was deleted). */
async function forgetChat(db: HubDatabase, agentId: string, userId: string): Promise<void> {
  await sql`
    with gone as (
      delete from hub_chat_turns where agent_id = ${agentId} and user_id = ${userId} returning turn_id
    )
    delete from hub_chat_frames where turn_id in (select turn_id from gone)`.execute(db);
}

/** Deletes ended turns older than KEEP_ENDED_MS and turns in flight no replica wrote for KEEP_STALLED_MS. */
async function prune(db: HubDatabase): Promise<void> {
  await sql`
    with gone as (
      delete from hub_chat_turns
      where (not live and updated_at < now() - make_interval(secs => ${KEEP_ENDED_MS / 1000}))
         or (live and updated_at < now() - make_interval(secs => ${KEEP_STALLED_MS / 1000}))
      returning turn_id
    )
    delete from hub_chat_frames where turn_id in (select turn_id from gone)`.execute(db);
}

interface HubChatFrames {
  /** `handlers` with chat.startTurn recording its turn, chat.frames answered on any replica, and a deleted
   * conversation's frames deleted. */
  handlers(handlers: Handlers): Handlers;
  close(): Promise<void>;
}

export function hubChatFrames(opts: {
  db: HubDatabase;
  replica: string;
  /** The replica companion's contract events (its turns' tokens and ends). */
  events: ContractEvents;
  /** The replica companion's requests: its own chat.frames is its memory of the turns it runs. */
  implementations: Implementations;
  logger?: Logger;
}): HubChatFrames {
  const { db, replica, implementations } = opts;
  const ownFrames = implementations['chat.frames'];
  const logger = opts.logger ?? silentLogger;
  const recording = new Map<string, Recording>();
  let warned = false;

  const write = async (turnId: string, r: Recording): Promise<void> => {
    const snapshot = await ownFrames({ turnId });
    if (!snapshot.known) {
      // Ended without a stream (refused at once): nothing to keep, and its row goes.
      if (r.ended) {
        recording.delete(turnId);
        await forgetTurn(db, turnId);
      }
      return;
    }
    r.written = await writeTurnFrames(
      db,
      { turnId, agentId: r.agentId, userId: r.userId, replica },
      snapshot,
      r.written,
    );
    if (!snapshot.live) recording.delete(turnId);
  };

  /** Writes the turn's new frames now, or once the write under way is done; one at a time per turn. */
  const flush = (turnId: string): void => {
    const r = recording.get(turnId);
    if (!r) return;
    if (r.timer) clearTimeout(r.timer);
    r.timer = null;
    if (r.writing) {
      r.again = true;
      return;
    }
    r.writing = write(turnId, r)
      .catch((e: unknown) => {
        // The next write (the next tokens, the end) carries what this one did not.
        if (!warned) logger.warn('hub chat frames: not written', { error: e instanceof Error ? e.message : String(e) });
        warned = true;
        if (r.ended) recording.delete(turnId);
      })
      .finally(() => {
        r.writing = null;
        if (r.again && recording.has(turnId)) {
          r.again = false;
          flush(turnId);
        }
      });
  };

  const off = opts.events.onAny((e) => {
    if (e.name !== 'chat.token' && e.name !== 'chat.done' && e.name !== 'chat.error') return;
    const r = recording.get(e.payload.turnId);
    if (!r) return;
    if (e.name === 'chat.token') {
      r.timer ??= setTimeout(() => flush(e.payload.turnId), WRITE_EVERY_MS);
      return;
    }
    r.ended = true;
    flush(e.payload.turnId);
  });

  const pruning = setInterval(() => void prune(db).catch(() => undefined), PRUNE_EVERY_MS);
  pruning.unref();

  const framesHere: Implementations['chat.frames'] = async ({ turnId }) => {
    const own = await ownFrames({ turnId });
    if (own.known) return own;
    return (await readTurnFrames(db, turnId)) ?? own;
  };

  return {
    handlers(h) {
      const frames = createHandlers({ ...implementations, 'chat.frames': framesHere })['chat.frames'];
      return {
        ...h,
        'chat.startTurn': async (raw) => {
          const r = await h['chat.startTurn'](raw);
          if (r.ok) {
            const { agentId, userId } = raw as { agentId: string; userId: string };
            const rec: Recording = {
              agentId,
              userId,
              written: 0,
              timer: null,
              writing: null,
              again: false,
              ended: false,
            };
            recording.set(r.value.turnId, rec);
            // Known to every replica from its start (live, no frames yet), as on this one.
            flush(r.value.turnId);
          }
          return r;
        },
        'chat.frames': frames,
        'chat.deleteConversation': async (raw) => {
          // A reply coming in through another replica: refused as the replica running it refuses it.
          const chat = raw as { agentId?: unknown; userId?: unknown } | null;
          if (
            typeof chat?.agentId === 'string' &&
            typeof chat.userId === 'string' &&
            (await runningElsewhere(db, replica, chat.agentId, chat.userId))
          ) {
            return { ok: false, error: toErrorDTO(deletionWhileRunning()) };
          }
          const r = await h['chat.deleteConversation'](raw);
          if (r.ok) {
            const { agentId, userId } = raw as { agentId: string; userId: string };
            // What is left if this fails goes within KEEP_ENDED_MS (pruned by every replica).
            await forgetChat(db, agentId, userId).catch((e: unknown) =>
              logger.warn("hub chat frames: a deleted chat's frames not deleted yet", {
                error: e instanceof Error ? e.message : String(e),
              }),
            );
          }
          return r;
        },
      };
    },
    async close() {
      off();
      clearInterval(pruning);
      for (const [turnId, r] of recording) if (r.timer) flush(turnId);
      await Promise.all([...recording.values()].map((r) => r.writing));
    },
  };
}
