// Unread counts and new-message notices over the companion's Messages. The counts come from the one
// index (messages.unread, and the messages.unread event after every change, so the sidebar, the home
// rows and the tray read the same numbers at the same moment). Each new message goes through the
// notify policy (core/messages/notify-policy.ts) and, when it notifies, is published as a
// messages.notice event: the Electron shell shows it as a native notification, the browser host's
// window as an in-app notice. A conversation read closes its notice.
import { MessageNotifyPolicy, type Message } from '../../core/messages';
import type { MessageUnreadDTO } from '../../../src-shared/contract';
import type { Implementations } from '../handlers';
import { messageNotificationsDTO } from './dto';
import { shownContact } from '../../../src-shared/message-words';
import type { MessageDTOs } from './messages';
import type { Scope } from './scope';

type NoticeRequests = Pick<Implementations, 'messages.unread' | 'messages.focus' | 'messages.mute'>;

export interface MessageNoticeSide {
  requests: NoticeRequests;
  /** The OS screen locked or unlocked (the Electron shell, from the platform's power monitor). */
  setScreenLocked(locked: boolean): void;
  /** Agents were added or removed: the rows change (a removed agent's count leaves the total). */
  teamsChanged(): void;
  dispose(): void;
}

/** The thread's route in the window: #/messages?team=…&agent=…&with=… */
function threadRoute(teamId: string | null, agentId: string, contact: string): string {
  const p = new URLSearchParams();
  if (teamId) p.set('team', teamId);
  p.set('agent', agentId);
  p.set('with', contact);
  return `#/messages?${p.toString()}`;
}

export function messageNoticeSide(s: Scope, dtos: MessageDTOs): MessageNoticeSide {
  const { c } = s;
  // Read once for a burst of messages (a batch is announced in one turn), not copied for each of them.
  let notifySettings: ReturnType<typeof c.settings>['prefs']['messageNotifications'] | null = null;
  const policy = new MessageNotifyPolicy({
    now: s.now,
    settings: () => {
      if (notifySettings === null) {
        notifySettings = c.settings().prefs.messageNotifications;
        queueMicrotask(() => (notifySettings = null));
      }
      return notifySettings;
    },
  });

  /** The counts of every agent: those kept at hand, or (a request) those of its reader. */
  const unread = (counts = (ids: string[]) => c.messages.index.unreadByAgent(ids)): MessageUnreadDTO => {
    const agents: MessageUnreadDTO['agents'] = [];
    for (const t of c.listTeams())
      for (const a of t.agents) agents.push({ teamId: t.id, agentId: a.agentId, unread: 0 });
    const byAgent = counts(agents.map((a) => a.agentId));
    for (const a of agents) a.unread = byAgent.get(a.agentId) ?? 0;
    // An agent in two teams is one number: counted once in the total.
    let total = 0;
    for (const n of byAgent.values()) total += n;
    return { total, agents };
  };

  // Changes in one burst (a log read again, many deliveries at once) publish the counts once.
  let unreadDue = false;
  const publishUnread = (): void => {
    if (unreadDue) return;
    unreadDue = true;
    queueMicrotask(() => {
      unreadDue = false;
      s.publish('messages.unread', unread());
    });
  };

  const agentName = (teamId: string | null, agentId: string): string => {
    // teamId is the agent's team (null: no team has it).
    const label = teamId === null ? undefined : c.findTeam(teamId)?.agents.find((a) => a.agentId === agentId)?.label;
    return label && label !== agentId ? `${label} (${agentId})` : agentId;
  };

  const onMessage = (m: Message): void => {
    publishUnread();
    const teamId = dtos.teamOf(m.agentId);
    const contact = shownContact(m.contact);
    const d = policy.decide(m, {
      teamId,
      agentName: agentName(teamId, m.agentId),
      contactName: c.messages.name(m.contact) ?? contact,
      unread: c.messages.index.unread(m.agentId, m.contact),
    });
    if (!('show' in d)) return;
    const n = d.show;
    s.publish('messages.notice', {
      kind: 'show',
      group: n.group,
      teamId,
      agentId: n.agentId,
      contact,
      count: n.count,
      title: n.title,
      body: n.body,
      privateBody: n.privateBody,
      silent: n.silent,
      route: threadRoute(teamId, n.agentId, contact),
    });
  };

  const onChanged = (): void => {
    publishUnread();
    for (const group of policy.readGroups((agentId, contact) => c.messages.index.unread(agentId, contact)))
      s.publish('messages.notice', { kind: 'clear', group });
  };

  const offs = [c.messages.on('message', onMessage), c.messages.on('changed', onChanged)];

  return {
    requests: {
      'messages.unread': async () => {
        await c.messages.loaded;
        const ids = c.listTeams().flatMap((t) => t.agents.map((a) => a.agentId));
        const counts = await c.messages.unreadCounts(ids);
        return unread(() => counts);
      },
      'messages.focus': async ({ agentId, phone }) => {
        policy.setOpenThread(agentId !== undefined && phone !== undefined ? { agentId, contact: phone } : null);
        return null;
      },
      'messages.mute': async ({ teamId, agentId, muted }) => {
        const team = s.requireTeam(teamId).id;
        const cur = c.settings().prefs.messageNotifications.muted;
        const rest = cur.filter((x) => !(x.teamId === team && x.agentId === agentId));
        const next = muted ? [...rest, { teamId: team, agentId }] : rest;
        return messageNotificationsDTO(await c.updateSettings({ prefs: { messageNotifications: { muted: next } } }));
      },
    },
    setScreenLocked: (locked) => policy.setScreenLocked(locked),
    teamsChanged: publishUnread,
    dispose() {
      for (const off of offs) off();
    },
  };
}
