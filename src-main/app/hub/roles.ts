// What a hub member may do: one table, request name → the least role that may call it. Each role may do
// what the roles below it may (viewer < developer < on-call < admin). The same table is in docs/hub.md.
import type { RequestName } from '../../../src-shared/contract';

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
