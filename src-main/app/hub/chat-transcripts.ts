// The chat transcripts of a hub, one truth for every replica: the TranscriptStore port (core/chat) on Postgres
// (`hub_chat_transcripts`, migration 0012_chat_transcripts) instead of the replica's data folder, so that
// chat.transcript, chat.conversations and chat.deleteConversation answer the same whichever replica ran a turn
// or serves the request. A conversation is the team's, as the service keeps it: its agent and user_id (every
// member's own conversation is the hub's install id); each turn records the member who ran it. A conversation
// keeps its latest turns (DEFAULT_MAX_TURNS), as the data folder's file does.
import { sql } from 'kysely';
import {
  conversationSummary,
  DEFAULT_MAX_TURNS,
  searchNeedle,
  summaryOfTurns,
  turnRecordOf,
  type ConversationSummary,
  type TranscriptStore,
  type TurnRecord,
} from '../../core/chat';
import { silentLogger, type Logger } from '../../core/ports';
import { actingMember } from './acting';
import type { HubDatabase } from './database';

/** Per conversation of the agent: its count, its first and last turns, its latest conversation id, a search's match. */
interface ConversationRow {
  user_id: string;
  turns: number;
  first: unknown;
  last: unknown;
  conversation_id: string | null;
  matched: unknown;
}

export function hubChatTranscripts(
  db: HubDatabase,
  opts: { maxTurns?: number; logger?: Logger } = {},
): TranscriptStore {
  const maxTurns = Math.max(1, Math.floor(opts.maxTurns ?? DEFAULT_MAX_TURNS));
  const logger = opts.logger ?? silentLogger;
  let warned = false;
  /** The stored record, or null (dropped and said once, as the data folder's store drops an unreadable turn). */
  const recordOf = (value: unknown): TurnRecord | null => {
    const turn = turnRecordOf(value);
    if (!turn && !warned) logger.warn('hub chat transcripts: dropped an unreadable turn');
    warned ||= !turn;
    return turn;
  };

  const list = async (agentId: string, userId: string): Promise<TurnRecord[]> => {
    const rows = await db
      .selectFrom('hub_chat_transcripts')
      .select('turn')
      .where('agent_id', '=', agentId)
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(maxTurns)
      .execute();
    return rows.flatMap((r) => recordOf(r.turn) ?? []).reverse();
  };

  return {
    list,

    async append(turn) {
      const member = actingMember()?.name ?? null;
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('hub_chat_transcripts')
          .values({
            agent_id: turn.agentId,
            user_id: turn.userId,
            turn_id: turn.turnId,
            team_id: turn.teamId,
            member,
            turn: JSON.stringify(turn),
          })
          .onConflict((oc) => oc.column('turn_id').doNothing())
          .execute();
        // Beyond the latest maxTurns of the conversation, the oldest go.
        await sql`
          delete from hub_chat_transcripts
          where agent_id = ${turn.agentId} and user_id = ${turn.userId} and id <= (
            select id from hub_chat_transcripts where agent_id = ${turn.agentId} and user_id = ${turn.userId}
            order by id desc offset ${maxTurns} limit 1
          )`.execute(trx);
      });
    },

    async clear(agentId, userId) {
      await db
        .deleteFrom('hub_chat_transcripts')
        .where('agent_id', '=', agentId)
        .where('user_id', '=', userId)
        .execute();
    },

    async conversations(agentId, text) {
      const needle = searchNeedle(text);
      const like = needle === null ? null : `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const { rows } = await sql<ConversationRow>`
        with chats as (
          select user_id, count(*)::int as turns, min(id) as first_id, max(id) as last_id,
            max(id) filter (where turn->>'conversationId' is not null) as conversation_id_at,
            min(id) filter (
              where ${like}::text is not null
                and (lower(turn->>'message') like ${like} or lower(turn->>'reply') like ${like})
            ) as matched_id
          from hub_chat_transcripts
          where agent_id = ${agentId}
          group by user_id
        )
        select c.user_id, c.turns, f.turn as first, l.turn as last, ci.turn->>'conversationId' as conversation_id,
          m.turn as matched
        from chats c
        join hub_chat_transcripts f on f.id = c.first_id
        join hub_chat_transcripts l on l.id = c.last_id
        left join hub_chat_transcripts ci on ci.id = c.conversation_id_at
        left join hub_chat_transcripts m on m.id = c.matched_id
        where ${like}::text is null or c.matched_id is not null`.execute(db);
      const out: ConversationSummary[] = [];
      for (const r of rows) {
        const [first, last] = [recordOf(r.first), recordOf(r.last)];
        const matched = r.matched === null ? null : recordOf(r.matched);
        if (!first || !last || (r.matched !== null && !matched)) {
          // A turn it is summarised from is unreadable: summarised from the turns that are, as the data folder does.
          const summary = summaryOfTurns(agentId, r.user_id, await list(agentId, r.user_id), needle);
          if (summary) out.push(summary);
          continue;
        }
        const summary = conversationSummary(
          {
            agentId,
            userId: r.user_id,
            turns: r.turns,
            first,
            last,
            conversationId: r.conversation_id,
            searched: matched ? [matched] : [],
          },
          needle,
        );
        if (summary) out.push(summary);
      }
      return out.sort((a, b) => (b.lastAt ?? 0) - (a.lastAt ?? 0));
    },
  };
}
