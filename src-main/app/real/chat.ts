// The chat port over ChatService: a turn's events become chat.token / chat.done / chat.error
// events tagged with its turnId; transcripts become user + agent messages.
import type { Companion } from '../../core/companion';
import type { TurnRecord } from '../../core/chat';
import type { ChatMessageDTO, ChatResultDTO, EventName, Events } from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { ChatPort } from '../services';
import { serviceErrorDTO } from './dto';
import { guard } from './errors';

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
    role: 'agent',
    text: t.reply,
    at: t.endedAt,
    status: t.error ? 'error' : t.stopped ? 'stopped' : 'done',
    result: resultOf(t),
  };
  if (t.error) agent.error = serviceErrorDTO(t.error);
  return [{ id: `${t.turnId}:user`, role: 'user', text: t.message, at: t.startedAt }, agent];
}

export function createChatPort(c: Companion, publish: <E extends EventName>(name: E, payload: Events[E]) => void): ChatPort {
  return {
    startTurn: (input) =>
      guard(async () => {
        const team = c.findTeam(input.teamId);
        if (!team) throw new AppError('not-found', 'NO_TEAM', `No team "${input.teamId}".`);
        const handle = c.chat.startTurn({ teamId: team.id, agentId: input.agentId, userId: input.userId, message: input.message });
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
            publish('chat.error', { turnId, error: { kind: 'internal', code: 'INTERNAL', message: 'The reply could not be read.' } });
          }
        })();
        return { turnId };
      }),
    stopTurn: (turnId) => c.chat.stopTurn(turnId),
    transcript: (_teamId, agentId, userId) => guard(async () => (await c.chat.listTranscript(agentId, userId)).flatMap(messagesOf)),
  };
}
