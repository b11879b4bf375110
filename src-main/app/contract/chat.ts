// chat.* over the companion's ChatService: a turn's events become chat.token / chat.done /
// chat.error events tagged with its turnId; transcripts become user + agent messages.
import type { TurnRecord } from '../../core/chat';
import type { ChatConversationDTO, ChatMessageDTO, ChatResultDTO } from '../../../src-shared/contract';
import { serviceErrorDTO } from '../errors';
import type { Implementations } from '../handlers';
import type { Scope } from './scope';

function resultOf(t: TurnRecord): ChatResultDTO {
  return {
    reply: t.reply,
    conversationId: t.conversationId,
    actions: t.actions.map((a) => ({ ...a })),
    usage: { ...t.usage },
    // Measured by the core from its own clock: the renderer prefers these to its estimate.
    firstTokenMs: t.firstTokenMs,
    tokensPerSec: t.tokensPerSec,
  };
}

function messagesOf(t: TurnRecord): ChatMessageDTO[] {
  const agent: ChatMessageDTO = {
    id: `${t.turnId}:agent`,
    turnId: t.turnId,
    role: 'agent',
    text: t.reply,
    at: t.endedAt,
    status: t.error ? 'error' : t.stopped ? 'stopped' : 'done',
    result: resultOf(t),
  };
  if (t.error) agent.error = serviceErrorDTO(t.error);
  return [{ id: `${t.turnId}:user`, role: 'user', text: t.message, at: t.startedAt }, agent];
}

export function chatRequests({
  c,
  requireTeam,
  publish,
}: Scope): Pick<
  Implementations,
  | 'chat.startTurn'
  | 'chat.stopTurn'
  | 'chat.transcript'
  | 'chat.frames'
  | 'chat.conversations'
  | 'chat.deleteConversation'
> {
  return {
    'chat.startTurn': async (input) => {
      const team = requireTeam(input.teamId);
      const handle = c.chat.startTurn({
        teamId: team.id,
        agentId: input.agentId,
        userId: input.userId,
        message: input.message,
      });
      const { turnId } = handle;
      void (async () => {
        try {
          for await (const ev of handle.events) {
            if (ev.type === 'token') publish('chat.token', { turnId, token: ev.token });
            else if (ev.type === 'done') {
              if (ev.turn.error) publish('chat.error', { turnId, error: serviceErrorDTO(ev.turn.error) });
              else publish('chat.done', { turnId, result: resultOf(ev.turn) });
            }
          }
        } catch {
          publish('chat.error', {
            turnId,
            error: { kind: 'internal', code: 'INTERNAL', message: 'The reply could not be read.' },
          });
        }
      })();
      return { turnId };
    },
    'chat.stopTurn': async ({ turnId }) => ({ stopped: c.chat.stopTurn(turnId) }),
    'chat.transcript': async ({ agentId, userId }) =>
      (await c.chat.listTranscript(agentId, userId)).flatMap(messagesOf),
    'chat.frames': async ({ turnId }) => {
      const f = c.chat.frames(turnId);
      return f
        ? { frames: f.frames.map((x) => ({ ...x })), omitted: f.omitted, live: f.live, known: true }
        : { frames: [], omitted: 0, live: false, known: false };
    },
    'chat.conversations': async ({ teamId, agentId, text }) => {
      requireTeam(teamId);
      return (await c.chat.listConversations(agentId, text)).map(
        ({ userId, turns, lastAt, conversationId, title, preview, match }): ChatConversationDTO => ({
          userId,
          turns,
          lastAt,
          conversationId,
          title,
          preview,
          match,
        }),
      );
    },
    'chat.deleteConversation': async ({ teamId, agentId, userId }) => {
      requireTeam(teamId);
      return { deleted: await c.chat.deleteConversation(agentId, userId) };
    },
  };
}
