// Who did what on a team hub. Every request beyond reading is recorded in hub_audit with the member (the hub's
// server records it before the handler runs); sends, registrations and deletions record themselves here instead,
// once answered, with what they were done to: the agent, and for a deletion how much went (never the text
// deleted, never the contact's number, so a deletion still deletes), or that the attempt failed. `hub.activity`
// reads the records newest first, the actions HUB_ACTIVITY_WORDS names, for Settings → Team hub and `hub activity`.
import { sql } from 'kysely';
import type { HubActivityDTO, RequestName, Result } from '../../../src-shared/contract';
import { counted, HUB_ACTIVITY_WORDS } from '../../../src-shared/words';
import { normalizeRecipient } from '../../core/api/phone';
import { contactKey } from '../../core/messages/inbound';
import { createHandlers, type Handlers, type Implementations } from '../handlers';
import { actingMember } from './acting';
import { HubDatabaseError, type HubDatabase } from './database';
import { audit } from './members';

/** The acting member's name, or null outside a hub request (CompanionOptions.actingMember). */
export function actingName(): string | null {
  return actingMember()?.name ?? null;
}

const ATTRIBUTED = [
  'send.message',
  'messages.send',
  'webhook.register',
  'webhook.restore',
  'messages.deleteConversation',
  'messages.deleteAgent',
  'messages.deleteContact',
  'chat.deleteConversation',
] as const satisfies readonly RequestName[];
type Attributed = (typeof ATTRIBUTED)[number];

/** The requests that record themselves once done (the server's record before the handler leaves them out). */
export function recordsItself(action: RequestName): boolean {
  return (ATTRIBUTED as readonly string[]).includes(action);
}

const ACTIVITY_LIMIT = 50;

export interface Attribution {
  /** The handlers of the attributed requests and hub.activity, over the companion's. */
  handlers(base: Handlers, implementations: Implementations): Pick<Handlers, Attributed | 'hub.activity'>;
}

export function hubAttribution(db: HubDatabase): Attribution {
  type Args = { teamId?: string; agentId?: string; phone?: string };
  /** How many messages (and conversations) the deletion will take, counted before it runs. */
  const held = async (
    agentId: string | null,
    contact: string | null,
  ): Promise<{ conversations: number; messages: number }> => {
    const r = await sql<{ conversations: string; messages: string | null }>`
      select count(*) as conversations, sum(count) as messages from hub_conversations
      where (${agentId}::text is null or agent_id = ${agentId})
        and (${contact}::text is null or contact = ${contact})`.execute(db);
    const row = r.rows[0];
    return { conversations: Number(row?.conversations ?? 0), messages: Number(row?.messages ?? 0) };
  };
  const keyOf = (phone: string | undefined): string | null => {
    if (phone === undefined) return null;
    try {
      return contactKey(normalizeRecipient(phone));
    } catch {
      return null;
    }
  };
  const amount = (h: { conversations: number; messages: number }): string =>
    `${counted(h.conversations, 'conversation')}, ${counted(h.messages, 'message')}`;

  /** What a request was done to, in words, known before it runs (a deletion's count) and after (its answer). */
  const subjects: Record<Attributed, (a: Args) => Promise<(value: unknown) => string>> = {
    'send.message': async (a) => () => `agent ${a.agentId}`,
    'messages.send': async (a) => () => `agent ${a.agentId}`,
    'webhook.register': async (a) => () => `agent ${a.agentId}`,
    'webhook.restore': async (a) => () => `agent ${a.agentId}`,
    'messages.deleteConversation': async (a) => {
      const h = await held(a.agentId ?? null, keyOf(a.phone));
      return () => `agent ${a.agentId}: ${counted(h.messages, 'message')}`;
    },
    'messages.deleteAgent': async (a) => {
      const h = await held(a.agentId ?? null, null);
      return () => `agent ${a.agentId}: ${amount(h)}`;
    },
    'messages.deleteContact': async (a) => {
      const h = await held(null, keyOf(a.phone));
      return () => amount(h);
    },
    'chat.deleteConversation': async (a) => (v) =>
      `agent ${a.agentId}${(v as { deleted?: boolean }).deleted === false ? ': none was kept' : ''}`,
  };

  const recorded = <K extends Attributed>(name: K, run: Handlers[K]): Handlers[K] =>
    (async (raw: unknown) => {
      const args = (raw ?? {}) as Args;
      // A count that cannot be read does not stop the request; its record then says less.
      const subject = await subjects[name](args).catch(() => () => `agent ${args.agentId ?? ''}`.trim());
      const r = (await run(raw)) as Result<unknown>;
      // An attempt that failed is recorded too, as such (nothing was sent, registered or deleted).
      const said = r.ok ? subject(r.value) : `failed: ${r.error.code}`;
      await audit(db, { member: actingName(), action: name, subject: said }).catch(() => undefined);
      return r;
    }) as Handlers[K];

  /**
   * An entry's subject in words: a reveal's (recorded as `<teamId> <agentId>`, ids that last) names the team by
   * its label now, and by its id only once the team is removed.
   */
  const inWords = (action: string, subject: string | null, labels: ReadonlyMap<string, string>): string | null => {
    if (action !== 'webhook.secretRevealed' || subject === null) return subject;
    const [teamId, agentId] = subject.split(' ', 2);
    if (!teamId || !agentId) return subject;
    return `${labels.get(teamId) ?? `team ${teamId}`}, agent ${agentId}`;
  };

  const activity =
    (teams: Implementations['teams.list']): Implementations['hub.activity'] =>
    async ({ limit = ACTIVITY_LIMIT, before }) => {
      // The teams' labels now; without them (the teams cannot be read) the entries name the ids.
      const listed = await Promise.resolve()
        .then(() => teams({}))
        .catch(() => []);
      const labels = new Map(listed.map((t) => [t.teamId, t.label]));
      return page(limit, before, labels);
    };

  const page = async (
    limit: number,
    before: number | undefined,
    labels: ReadonlyMap<string, string>,
  ): Promise<HubActivityDTO> => {
    try {
      let q = db
        .selectFrom('hub_audit')
        .select(['id', 'at', 'member', 'action', 'subject'])
        .where('action', 'in', Object.keys(HUB_ACTIVITY_WORDS));
      if (before !== undefined) q = q.where('id', '<', before);
      const rows = await q
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      const entries = rows.slice(0, limit).map((r) => ({
        id: Number(r.id),
        at: r.at.getTime(),
        member: r.member,
        action: r.action,
        subject: inWords(r.action, r.subject, labels),
      }));
      return { entries, next: rows.length > limit ? entries[entries.length - 1]!.id : null };
    } catch (e) {
      throw new HubDatabaseError(
        `the hub's database could not be read (${e instanceof Error ? e.message : String(e)}); try again`,
      );
    }
  };

  return {
    handlers: (base, implementations) => ({
      'send.message': recorded('send.message', base['send.message']),
      'messages.send': recorded('messages.send', base['messages.send']),
      'webhook.register': recorded('webhook.register', base['webhook.register']),
      'webhook.restore': recorded('webhook.restore', base['webhook.restore']),
      'messages.deleteConversation': recorded('messages.deleteConversation', base['messages.deleteConversation']),
      'messages.deleteAgent': recorded('messages.deleteAgent', base['messages.deleteAgent']),
      'messages.deleteContact': recorded('messages.deleteContact', base['messages.deleteContact']),
      'chat.deleteConversation': recorded('chat.deleteConversation', base['chat.deleteConversation']),
      'hub.activity': createHandlers({
        ...implementations,
        'hub.activity': activity(implementations['teams.list']),
      })['hub.activity'],
    }),
  };
}
