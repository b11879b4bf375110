// What a hub member may do: one table, request name → the least role that may call it. Each role may do
// what the roles below it may (viewer < developer < on-call < admin). The same table is in docs/hub.md. The
// hub checks it before a request's handler runs; the windows read it to disable what a member's role does not
// allow, with the words of roleRefusal.
import type { RequestName } from './contract';

export const ROLES = ['viewer', 'developer', 'on-call', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The least role for each request (every request is listed: the compiler checks it). */
const LEAST_ROLE: Record<RequestName, Role> = {
  // viewer: reads
  'app.ping': 'viewer',
  // A window's own connection to a hub: answered by the desktop app or the browser host, never by a hub.
  'hub.status': 'viewer',
  'hub.activity': 'viewer',
  'teams.list': 'viewer',
  'agents.list': 'viewer',
  'health.snapshot': 'viewer',
  'health.history': 'viewer',
  'health.availability': 'viewer',
  'alerts.list': 'viewer',
  'alerts.history': 'viewer',
  'alerts.status': 'viewer',
  'pairing.session': 'viewer',
  'send.budget': 'viewer',
  'webhook.history': 'viewer',
  'tunnel.status': 'viewer',
  'tunnel.deliveries': 'viewer',
  'tunnel.delivery': 'viewer',
  'tunnel.refused': 'viewer',
  'tunnel.media': 'viewer',
  'tunnel.export': 'viewer',
  'chat.transcript': 'viewer',
  'chat.conversations': 'viewer',
  'chat.frames': 'viewer',
  'settings.get': 'viewer',
  'messages.contacts': 'viewer',
  'messages.thread': 'viewer',
  'messages.search': 'viewer',
  'messages.export': 'viewer',
  'messages.media': 'viewer',
  'messages.sent': 'viewer',
  'messages.unread': 'viewer',
  'messages.focus': 'viewer',
  // developer: + listen, replay, simulate, test sends
  'tunnel.start': 'developer',
  'tunnel.expose': 'developer',
  'tunnel.unexpose': 'developer',
  'tunnel.retryNow': 'developer',
  'tunnel.replay': 'developer',
  'tunnel.simulate': 'developer',
  'send.message': 'developer',
  'send.cancel': 'developer',
  'send.stop': 'developer',
  'messages.send': 'developer',
  'contacts.check': 'developer',
  'chat.startTurn': 'developer',
  'chat.stopTurn': 'developer',
  'messages.markRead': 'developer',
  'messages.setName': 'developer',
  'messages.mute': 'developer',
  // on-call: + acknowledge, snooze, quiet hours, keeping numbers paired and watched
  'alerts.acknowledge': 'on-call',
  'alerts.acknowledgeAll': 'on-call',
  'alerts.snooze': 'on-call',
  'alerts.unsnooze': 'on-call',
  'alerts.setQuietHours': 'on-call',
  'pairing.start': 'on-call',
  'agents.watchClosely': 'on-call',
  'agents.setLabels': 'admin',
  // admin: + teams, keys, registrations, settings, deletions
  'teams.add': 'admin',
  'hub.connect': 'admin',
  'hub.disconnect': 'admin',
  'teams.remove': 'admin',
  'teams.update': 'admin',
  'agents.add': 'admin',
  'agents.remove': 'admin',
  'webhook.register': 'admin',
  'webhook.restore': 'admin',
  'webhook.revealSecret': 'admin',
  'tunnel.setNgrokAuthtoken': 'admin',
  'channel.updateSettings': 'admin',
  'settings.update': 'admin',
  'diagnostics.export': 'admin',
  'demo.start': 'admin',
  'chat.deleteConversation': 'admin',
  'messages.deleteConversation': 'admin',
  'messages.deleteAgent': 'admin',
  'messages.deleteContact': 'admin',
  'messages.setRetention': 'admin',
  'messages.saveMedia': 'admin',
};

/** The least role that may call `request`. */
export function leastRole(request: RequestName): Role {
  return LEAST_ROLE[request];
}

export function roleAllows(role: Role, request: RequestName): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(LEAST_ROLE[request]);
}

/** What a request does, in the words of "Your role (viewer) can't …". */
const DOING: Record<RequestName, string> = {
  'app.ping': 'reach the hub',
  'hub.status': 'see the hub connection',
  'hub.activity': "see the team's activity",
  'teams.list': 'see the teams',
  'agents.list': 'see the agents',
  'health.snapshot': "see the agents' health",
  'health.history': "see an agent's history",
  'health.availability': "see an agent's availability",
  'alerts.list': 'see the incidents',
  'alerts.history': 'see the incident history',
  'alerts.status': 'see the alert status',
  'pairing.session': 'see a pairing',
  'send.budget': 'see the send budget',
  'webhook.history': 'see the webhook history',
  'tunnel.status': 'see the receiver',
  'tunnel.deliveries': 'see the deliveries',
  'tunnel.delivery': 'see a delivery',
  'tunnel.refused': 'see the refused requests',
  'tunnel.media': "see a delivery's media",
  'tunnel.export': 'export deliveries',
  'chat.transcript': 'read a chat',
  'chat.conversations': 'see the chats',
  'chat.frames': "see a chat's frames",
  'settings.get': 'see the settings',
  'messages.contacts': 'see the conversations',
  'messages.thread': 'read a conversation',
  'messages.search': 'search the messages',
  'messages.export': 'export a conversation',
  'messages.media': "see a message's media",
  'messages.sent': 'see the sent messages',
  'messages.unread': 'see the unread counts',
  'messages.focus': 'open a conversation',
  'tunnel.start': 'start the receiver',
  'tunnel.expose': 'open a public tunnel',
  'tunnel.unexpose': 'close the public tunnel',
  'tunnel.retryNow': 'retry forwarding',
  'tunnel.replay': 'replay deliveries',
  'tunnel.simulate': 'simulate deliveries',
  'send.message': 'send messages',
  'send.cancel': 'cancel a send',
  'send.stop': 'stop a send',
  'messages.send': 'send messages',
  'contacts.check': 'check numbers',
  'chat.startTurn': 'chat with an agent',
  'chat.stopTurn': 'stop a chat answer',
  'messages.markRead': 'mark messages read',
  'messages.setName': 'name a contact',
  'messages.mute': 'mute a conversation',
  'alerts.acknowledge': 'acknowledge incidents',
  'alerts.acknowledgeAll': 'acknowledge incidents',
  'alerts.snooze': 'snooze alerts',
  'alerts.unsnooze': 'resume alerts',
  'alerts.setQuietHours': 'set quiet hours',
  'pairing.start': 'pair a number',
  'agents.watchClosely': 'watch an agent closely',
  'agents.setLabels': "change an agent's labels",
  'teams.add': 'add teams',
  'hub.connect': 'connect to a hub',
  'hub.disconnect': 'disconnect from a hub',
  'teams.remove': 'remove teams',
  'teams.update': 'change teams',
  'agents.add': 'add agents',
  'agents.remove': 'remove agents',
  'webhook.register': 'register webhooks',
  'webhook.restore': 'restore webhooks',
  'webhook.revealSecret': 'reveal signing secrets',
  'tunnel.setNgrokAuthtoken': 'set the ngrok authtoken',
  'channel.updateSettings': "change an agent's settings",
  'settings.update': 'change the settings',
  'diagnostics.export': 'export diagnostics',
  'demo.start': 'start the demo',
  'chat.deleteConversation': 'delete chats',
  'messages.deleteConversation': 'delete conversations',
  'messages.deleteAgent': "delete an agent's messages",
  'messages.deleteContact': 'delete contacts',
  'messages.setRetention': 'change how long messages are kept',
  'messages.saveMedia': 'save media',
};

/** Why `role` may not call `request`, and whom to ask: "Your role (viewer) can't send messages — ask a hub admin for the developer role." */
export function roleRefusal(role: Role, request: RequestName): string {
  const least = LEAST_ROLE[request];
  const needs = least === 'admin' ? 'the admin role' : `the ${least} role or above`;
  return `Your role (${role}) can't ${DOING[request]} — ask a hub admin for ${needs}.`;
}
