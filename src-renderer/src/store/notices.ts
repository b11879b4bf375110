// In-app notices (toasts): short, dismissable, announced politely. A notice about an incident
// follows it: the incident's words when they change, and its resolved state (which replaces the
// warning or urgent notice instead of stacking a second one). The stack shows a few at a time, and
// new-message notices of several conversations as one.
// Notices name an agent one way: its label, then its id in parentheses when the two differ.
import type { AlertEventDTO, MessageNoticeDTO } from '../../../src-shared/contract';
import { agentHref } from '../router/routes';
import { localId, type Slice } from './env';

type NoticeTone = 'info' | 'message' | 'success' | 'warning' | 'urgent';

export interface Notice {
  id: string;
  tone: NoticeTone;
  title: string;
  body?: string;
  /** A route to open from the notice, e.g. the agent's page. */
  route?: string;
  /** The incident this notice tells of (alert notices): its id, the agent (id and label; '' when team-wide) and its title. */
  incident?: { id: string; agentId: string; agentLabel: string; title: string };
  /** The conversation of a new-message notice: the next notice of it takes this one's place. */
  group?: string;
  /** Was urgent before it resolved: it keeps its place at the top of the stack until it leaves. */
  wasUrgent?: boolean;
  /** A notice standing for several (new messages of several conversations): their ids, dismissed with it. */
  members?: string[];
  at: number;
}

export type NoticeInput = Omit<Notice, 'id' | 'at'>;

export interface NoticesSlice {
  /** Oldest first. */
  notices: Notice[];
  pushNotice(n: NoticeInput): string;
  dismissNotice(id: string): void;
  /** Several at once (the notices a merged one stands for). */
  dismissNotices(ids: readonly string[]): void;
  dismissAllNotices(): void;
  /**
   * A new-message notice (the browser host's stand-in for a native notification): one per
   * conversation, replaced by the next, gone when the conversation is read.
   */
  applyMessageNotice(n: MessageNoticeDTO): void;
  /** An alert event as a notice: a new one when the policy tells of it, the same one re-worded or resolved after. */
  applyAlertNotice(e: AlertEventDTO, agentLabel: string): void;
  /**
   * Incident notices older than `before` whose incident is not among `openIds` (an alerts.list
   * answer asked at `before`) say it is no longer open: their close was missed, so how it ended is
   * not claimed.
   */
  settleNotices(openIds: ReadonlySet<string>, before: number): void;
}

/** Notices kept; past this the oldest non-urgent ones go first. */
const KEPT = 10;
/** Notices on screen at once; the rest are counted ("+N more"). */
const NOTICES_SHOWN = 3;

/** How notices name an agent: "Support bot (a7)", or "a7" when it has no other label. */
export function agentName(label: string, agentId: string): string {
  return label !== '' && label !== agentId ? `${label} (${agentId})` : agentId;
}

/**
 * An incident's title under the agent's name: a title that starts with the agent's id (the
 * monitor's words, "a7 is reconnecting", "a7 (+1555…) needs a QR scan") takes the name in its
 * place; another title goes after the name.
 */
function titled(title: string, label: string, agentId: string): string {
  if (label === '' || label === agentId) return title;
  if (title.startsWith(`${agentId} (`)) return `${label} (${agentId}, ${title.slice(agentId.length + 2)}`;
  if (title.startsWith(`${agentId} `)) return `${agentName(label, agentId)}${title.slice(agentId.length)}`;
  return `${agentName(label, agentId)}: ${title}`;
}

function bounded(list: Notice[]): Notice[] {
  const out = [...list];
  while (out.length > KEPT) {
    const i = out.findIndex((n) => n.tone !== 'urgent');
    out.splice(i === -1 ? 0 : i, 1);
  }
  return out;
}

/**
 * The in-app notice for an alert event: only for what the alert policy told the person about
 * (`notify`: a flap, a quiet update or a recovery below the grace period get none).
 */
function noticeFor(e: AlertEventDTO, agentLabel: string): NoticeInput | null {
  if (!e.notify) return null;
  const route = agentHref(e.incident.teamId, e.incident.agentId);
  // A team-wide incident's title names the team; no one agent's label goes before it.
  const label = e.incident.teamWide ? '' : agentLabel;
  const incident = { id: e.incident.id, agentId: e.incident.agentId, agentLabel: label, title: e.incident.title };
  if (e.change === 'resolved') return resolvedNotice(incident, route, e.incident.title);
  const tone = e.incident.severity === 'urgent' ? 'urgent' : e.incident.severity === 'warning' ? 'warning' : 'info';
  const title = titled(e.incident.title, label, e.incident.agentId);
  return { tone, title, body: e.incident.message, route, incident };
}

/** `body`: the words of the resolve (the incident's title once resolved). */
function resolvedNotice(
  incident: NonNullable<Notice['incident']>,
  route: string | undefined,
  body: string,
): NoticeInput {
  const title =
    incident.agentLabel === ''
      ? 'Back to normal'
      : `${agentName(incident.agentLabel, incident.agentId)}: back to normal`;
  return { tone: 'success', title, body, ...(route ? { route } : {}), incident };
}

/** New-message notices of two or more conversations, as one notice in the place of the newest. */
function mergeMessages(notices: readonly Notice[]): Notice[] {
  const messages = notices.filter((n) => n.tone === 'message');
  if (messages.length < 2) return [...notices];
  const newest = messages[messages.length - 1]!;
  const merged: Notice = {
    id: `messages:${messages.map((n) => n.id).join(',')}`,
    tone: 'message',
    title: `New messages in ${messages.length} conversations`,
    body: `Latest: ${newest.title}`,
    route: '#/messages',
    members: messages.map((n) => n.id),
    at: newest.at,
  };
  return notices.flatMap((n) => (n.tone !== 'message' ? [n] : n === newest ? [merged] : []));
}

/**
 * What the stack shows: urgent notices first (and urgent ones that just resolved, in the same place),
 * then the newest, new messages of several conversations as one; at most `max`, and how many wait.
 */
export function noticeStack(notices: readonly Notice[], max = NOTICES_SHOWN): { shown: Notice[]; more: number } {
  const top = (n: Notice) => n.tone === 'urgent' || n.wasUrgent === true;
  const all = mergeMessages(notices);
  const urgent = all.filter(top).reverse();
  const rest = all.filter((n) => !top(n)).reverse();
  const ordered = [...urgent, ...rest];
  return { shown: ordered.slice(0, max), more: Math.max(0, ordered.length - max) };
}

export const noticesSlice: Slice<NoticesSlice> = ({ set, env }) => ({
  notices: [],
  pushNotice: (n) => {
    const id = localId('notice');
    set((s) => ({ notices: bounded([...s.notices, { ...n, id, at: env.now() }]) }));
    return id;
  },
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  dismissNotices: (ids) => set((s) => ({ notices: s.notices.filter((n) => !ids.includes(n.id)) })),
  dismissAllNotices: () => set({ notices: [] }),
  applyMessageNotice: (n) =>
    set((s) => {
      const rest = s.notices.filter((x) => x.group !== n.group);
      if (n.kind === 'clear') return rest.length === s.notices.length ? {} : { notices: rest };
      const notice: Notice = {
        id: s.notices.find((x) => x.group === n.group)?.id ?? localId('notice'),
        tone: 'message',
        title: n.title,
        body: n.body,
        route: n.route,
        group: n.group,
        at: env.now(),
      };
      return { notices: bounded([...rest, notice]) };
    }),
  applyAlertNotice: (e, agentLabel) =>
    set((s) => {
      const i = s.notices.findIndex((n) => n.incident?.id === e.incident.id);
      const known = i === -1 ? undefined : s.notices[i];
      if (!known) {
        const input = noticeFor(e, agentLabel);
        return input ? { notices: bounded([...s.notices, { ...input, id: localId('notice'), at: env.now() }]) } : {};
      }
      const next = [...s.notices];
      if (e.change === 'resolved' || e.incident.resolvedAt !== null) {
        // A resolve the policy keeps quiet about closes the notice; one it tells of replaces it.
        if (!e.notify) return { notices: next.filter((n) => n.id !== known.id) };
        const resolved = resolvedNotice(
          {
            id: e.incident.id,
            agentId: e.incident.agentId,
            agentLabel: e.incident.teamWide ? '' : agentLabel,
            title: e.incident.title,
          },
          known.route,
          e.incident.title,
        );
        next[i] = {
          ...resolved,
          id: known.id,
          at: env.now(),
          ...(known.tone === 'urgent' || known.wasUrgent ? { wasUrgent: true } : {}),
        };
      } else {
        // The notice on screen takes the incident's new words, told of or not.
        const fresh = noticeFor({ ...e, change: 'opened', notify: true }, agentLabel);
        if (fresh) next[i] = { ...fresh, id: known.id, at: known.at };
      }
      return { notices: next };
    }),
  settleNotices: (openIds, before) =>
    set((s) => {
      let changed = false;
      const notices = s.notices.map((n) => {
        if (!n.incident || n.tone === 'success' || n.at >= before || openIds.has(n.incident.id)) return n;
        changed = true;
        // How it ended was not seen here (recovered, or its agent removed): no "back to normal".
        const title = n.incident.agentLabel === '' ? 'No longer open' : `${n.incident.agentLabel}: no longer open`;
        return {
          tone: 'info' as const,
          title,
          body: n.incident.title,
          ...(n.route ? { route: n.route } : {}),
          incident: n.incident,
          id: n.id,
          at: env.now(),
          ...(n.tone === 'urgent' ? { wasUrgent: true } : {}),
        };
      });
      return changed ? { notices } : {};
    }),
});
