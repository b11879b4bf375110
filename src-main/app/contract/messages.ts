// messages.* over the companion's Messages: contacts and threads as DTOs, read marks, local names,
// deletion, retention, and the composer's send (through the same path as the console's). The answer
// for contacts says, per agent, when this app is not where its deliveries arrive, so a screen never
// shows an empty inbox without a reason.
import { shownContact } from '../../../src-shared/message-words';
import { normalizeRecipient } from '../../core/api/phone';
import { MessageStoreError, type ContactSummary, type Message, type SearchResult } from '../../core/messages';
import type {
  InboxAgentDTO,
  InboxGap,
  MatchRangeDTO,
  MessageContactDTO,
  MessageDTO,
  MessageSearchDTO,
  MessageThreadDTO,
} from '../../../src-shared/contract';
import { AppError, serviceKind } from '../errors';
import type { Implementations } from '../handlers';
import type { MediaFiles } from './media';
import type { Scope } from './scope';
import type { SendThrough } from './service';

type MessageRequests = Pick<
  Implementations,
  | 'messages.contacts'
  | 'messages.thread'
  | 'messages.markRead'
  | 'messages.setName'
  | 'messages.deleteConversation'
  | 'messages.deleteAgent'
  | 'messages.setRetention'
  | 'messages.send'
  | 'messages.media'
  | 'messages.saveMedia'
  | 'messages.sent'
  | 'messages.search'
  | 'messages.export'
  | 'messages.deleteContact'
>;

export interface MessageDTOs {
  /** The team an agent belongs to (the first that has it), or null. */
  teamOf(agentId: string): string | null;
  message(m: Message): MessageDTO;
  contact(c: ContactSummary): MessageContactDTO;
}

export function messageDTOs(s: Scope): MessageDTOs {
  const teamOf = (agentId: string): string | null => s.c.teamOfAgent(agentId);
  const message = (m: Message): MessageDTO => {
    const dto: MessageDTO = {
      key: m.key,
      teamId: m.teamId ?? teamOf(m.agentId),
      agentId: m.agentId,
      contact: shownContact(m.contact),
      seq: m.seq,
      at: m.at,
      direction: m.direction,
      fromMe: m.fromMe,
      type: m.type,
      text: m.text,
    };
    if (m.eventAt !== undefined) dto.eventAt = m.eventAt;
    if (m.media) dto.media = { ...m.media };
    if (m.messageId !== undefined) dto.messageId = m.messageId;
    if (m.status !== undefined) dto.status = m.status;
    if (m.error) {
      dto.error = { kind: serviceKind(m.error.kind), code: m.error.code, message: m.error.message };
      if (m.error.limit !== undefined) dto.error.limit = m.error.limit;
    }
    if (m.via !== undefined) dto.via = m.via;
    if (m.clientRef !== undefined) dto.clientRef = m.clientRef;
    if (m.sentBy !== undefined) dto.sentBy = m.sentBy;
    if (m.deliveryId !== undefined) dto.deliveryId = m.deliveryId;
    if (m.simulated) dto.simulated = true;
    return dto;
  };
  const contact = (c: ContactSummary): MessageContactDTO => {
    const dto: MessageContactDTO = {
      teamId: teamOf(c.agentId),
      agentId: c.agentId,
      contact: shownContact(c.contact),
      lastAt: c.lastAt,
      last: message(c.last),
      unread: c.unread,
      count: c.count,
    };
    if (c.name !== undefined) dto.name = c.name;
    return dto;
  };
  return { teamOf, message, contact };
}

const GAP_WORDS: Record<InboxGap, string> = {
  'not-registered':
    "Not registered here: this install has not pointed the agent's webhook at its receiver, so messages written to its number do not reach this app (the service cannot tell where they go now). Register it on the Tunnel screen.",
  'receiver-elsewhere':
    'Another process (`channel-companion listen` or a second app) receives the deliveries into this data folder; the messages it stores appear here within a few seconds, but this app cannot receive itself until that process stops.',
  'receiver-stopped':
    "This app's receiver is not running, so new messages are not being received. Start it on the Tunnel screen.",
};

/** Sends listed by messages.sent when no limit is asked for (the console's table). */
const SENT_LIMIT = 200;
/** Messages read at a time to tell whether a conversation is simulated through and through. */
const SIMULATED_PAGE = 500;
/** Hits of each kind messages.search answers when no limit is asked for. */
const SEARCH_LIMIT = 50;

/** A damaged or locked message database, in the contract's words (the file named, nothing lost). */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MessageStoreError)
      throw new AppError('invalid-request', `MESSAGES_DB_${err.kind.toUpperCase().replace(/-/g, '_')}`, err.message);
    throw err;
  }
}

/** Ranges in a stored contact (digits) as ranges in the shown one (+digits). */
function shownRanges(contact: string, ranges: Array<[number, number]>): MatchRangeDTO[] {
  const shift = shownContact(contact).length - contact.length;
  return ranges.map(([a, b]) => [a + shift, b + shift]);
}

function searchDTO(r: SearchResult, dtos: MessageDTOs): MessageSearchDTO {
  return {
    messages: r.messages.map((h) => ({ message: dtos.message(h.message), field: h.field, ranges: h.ranges })),
    contacts: r.contacts.map((h) => ({
      contact: dtos.contact(h.contact),
      field: h.field,
      ranges: h.field === 'contact' ? shownRanges(h.contact.contact, h.ranges) : h.ranges,
    })),
  };
}

export function messageRequests(s: Scope, send: SendThrough, media: MediaFiles): MessageRequests {
  const { c } = s;
  const dtos = messageDTOs(s);
  /** The agents asked for: one, a team's, or every agent of every team. */
  const agentsOf = (q: {
    teamId?: string | undefined;
    agentId?: string | undefined;
  }): Array<{ teamId: string; agentId: string }> => {
    const teams = q.teamId !== undefined ? [s.requireTeam(q.teamId)] : c.listTeams();
    const out: Array<{ teamId: string; agentId: string }> = [];
    for (const t of teams)
      for (const a of t.agents)
        if (q.agentId === undefined || a.agentId === q.agentId) out.push({ teamId: t.id, agentId: a.agentId });
    if (q.agentId !== undefined && out.length === 0 && q.teamId === undefined)
      out.push({ teamId: '', agentId: q.agentId });
    return out;
  };
  /**
   * Whether a conversation holds messages and every one of them is simulated (made up on this
   * machine, or a replay of a stored delivery): it never came from WhatsApp, so no one is there to
   * reply to. Read a page at a time, stopping at the first message that is not simulated.
   */
  const simulatedOnly = async (agentId: string, contact: string): Promise<boolean> => {
    let beforeSeq: number | undefined;
    for (let any = false; ;) {
      const t = await c.messages.thread(agentId, contact, {
        limit: SIMULATED_PAGE,
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      });
      if (t.messages.some((m) => !m.simulated)) return false;
      any ||= t.messages.length > 0;
      if (!t.more || t.messages.length === 0) return any;
      beforeSeq = t.messages[0]!.seq;
    }
  };
  const gapOf = (teamId: string, agentId: string): InboxGap | null => {
    if (c.tunnelProblem() !== null) return 'receiver-elsewhere';
    if (c.publicUrlOf(teamId, agentId) === null) return 'not-registered';
    if (c.tunnelUrl() === null) return 'receiver-stopped';
    return null;
  };
  return {
    'messages.contacts': async ({ teamId, agentId, search, limit }) => {
      const agents = agentsOf({ teamId, agentId });
      const agentIds = agents.map((a) => a.agentId);
      const contacts = await guarded(() =>
        c.messages.contacts({
          agentIds,
          ...(search !== undefined ? { search } : {}),
          ...(limit !== undefined ? { limit } : {}),
        }),
      );
      // The counts are read just after the list (at start, once the first list's query is answered).
      await c.messages.loaded;
      const unreadOf = await guarded(() => c.messages.unreadCounts(agentIds));
      const agentDTOs: InboxAgentDTO[] = agents.map(({ teamId: t, agentId: a }) => {
        const gap = gapOf(t, a);
        return {
          teamId: t,
          agentId: a,
          unread: unreadOf.get(a) ?? 0,
          gap,
          reason: gap === null ? null : GAP_WORDS[gap],
        };
      });
      const listed = await Promise.all(
        contacts.map(async (x) => {
          const dto = dtos.contact(x);
          // Only a conversation whose latest message is simulated can be simulated through and through.
          if (x.last.simulated && (await guarded(() => simulatedOnly(x.agentId, x.contact)))) dto.simulated = true;
          return dto;
        }),
      );
      return {
        contacts: listed,
        agents: agentDTOs,
        unread: [...unreadOf.values()].reduce((n, x) => n + x, 0),
        retentionDays: c.messages.retentionDays(),
      };
    },
    'messages.thread': async ({ teamId, agentId, phone, before, beforeSeq, limit }) => {
      s.requireTeam(teamId);
      const contact = normalizeRecipient(phone);
      const t = await guarded(() =>
        c.messages.thread(agentId, contact, {
          limit: limit ?? 100,
          ...(before !== undefined ? { before } : {}),
          ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        }),
      );
      await c.messages.loaded;
      const name = c.messages.name(contact);
      const out: MessageThreadDTO = { messages: t.messages.map(dtos.message), more: t.more };
      if (name !== undefined) out.name = name;
      if (t.messages.length > 0 && t.messages.every((m) => m.simulated)) {
        if (!t.more || (await guarded(() => simulatedOnly(agentId, contact)))) out.simulated = true;
      }
      return out;
    },
    'messages.markRead': async ({ teamId, agentId, phone, upToSeq }) => {
      s.requireTeam(teamId);
      await guarded(() => c.messages.markRead(agentId, normalizeRecipient(phone), upToSeq));
      return null;
    },
    'messages.setName': async ({ phone, name }) => {
      await guarded(() => c.messages.setName(normalizeRecipient(phone), name));
      return null;
    },
    'messages.deleteConversation': async ({ teamId, agentId, phone }) => {
      s.requireTeam(teamId);
      await guarded(() => c.messages.delete(agentId, normalizeRecipient(phone)));
      return null;
    },
    'messages.deleteAgent': async ({ teamId, agentId }) => {
      s.requireTeam(teamId);
      await guarded(() => c.messages.delete(agentId));
      return null;
    },
    'messages.setRetention': async ({ days }) => {
      await guarded(() => c.messages.setRetentionDays(days));
      return { retentionDays: c.messages.retentionDays() };
    },
    'messages.send': async (ask) => {
      if (await guarded(() => simulatedOnly(ask.agentId, normalizeRecipient(ask.to))))
        throw new AppError(
          'invalid-request',
          'SIMULATED_CONVERSATION',
          `The conversation with ${shownContact(normalizeRecipient(ask.to))} holds only simulated or replayed deliveries (made up on this machine, never from WhatsApp): there is no one to reply to, and nothing was sent.`,
        );
      const r = await send('messages', ask);
      return { status: r.status, messageId: r.messageId, to: r.to };
    },
    'messages.media': ({ teamId, agentId, messageKey }) => media.message(teamId, agentId, messageKey),
    'messages.saveMedia': ({ teamId, agentId, messageKey }) => media.save(teamId, agentId, messageKey),
    'messages.sent': async ({ teamId, agentId, limit }) => {
      s.requireTeam(teamId);
      return (await guarded(() => c.messages.sent(agentId, limit ?? SENT_LIMIT)))
        .filter((m) => (m.teamId ?? teamId) === teamId)
        .map(dtos.message);
    },
    'messages.search': async ({ query, teamId, agentId, limit }) => {
      const agentIds =
        teamId !== undefined || agentId !== undefined ? agentsOf({ teamId, agentId }).map((a) => a.agentId) : undefined;
      const r = await guarded(() =>
        c.messages.search({ text: query, limit: limit ?? SEARCH_LIMIT, ...(agentIds ? { agentIds } : {}) }),
      );
      return searchDTO(r, dtos);
    },
    'messages.export': async ({ teamId, agentId, phone, format }) => {
      s.requireTeam(teamId);
      return guarded(() => c.messages.export(agentId, normalizeRecipient(phone), format));
    },
    'messages.deleteContact': async ({ phone }) => {
      const r = await guarded(() => c.messages.deleteContact(normalizeRecipient(phone)));
      return { removed: r.removed };
    },
  };
}
