// What people read, made from the contract's values: an agent's health, a delivery's verdict, a
// refused request's reason, a forward's state, an incident's severity and length, counts. One module
// for the screens, the tray, the notifications, the alert texts, the incidents CSV and the command
// line's text, so no two of them say one thing in two ways. Plain data and functions for every
// runtime: it imports only the lists of words (vocabulary) and the duration words.
import { formatDuration } from './duration';
import type { Health, RefusedReason, Verdict } from './vocabulary';

// ----- counts ------------------------------------------------------------------------------------

/** "1 agent", "5 agents", "0 incidents". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// ----- health ------------------------------------------------------------------------------------

/** An agent's health in full, where there is room: the state and what it means for the person. */
export const HEALTH_WORDS: Record<Health, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting — recovers on its own',
  'needs-scan': 'Needs a QR scan',
  'key-rejected': 'Key rejected — add the team again with a current key',
  'not-found': 'Not in this team on the service',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** The same words cut to the state alone, for tight places (a list row, the tray menu); HEALTH_HINTS says the rest. */
export const HEALTH_SHORT: Record<Health, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting',
  'needs-scan': 'Needs a QR scan',
  'key-rejected': 'Key rejected',
  'not-found': 'Not found',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

/** What the state means for the person, beside a short badge. */
export const HEALTH_HINTS: Record<Health, string> = {
  connected: '',
  reconnecting: 'recovers on its own',
  'needs-scan': 'a person must scan the QR code',
  'key-rejected': "the service refused the team's API key",
  'not-found': 'the service does not know this agent in this team',
  unreachable: 'the service does not answer',
  unknown: 'waiting for the first check',
};

/** Any health, while it cannot be told now (the companion does not answer). */
export const STALE_WORDS = 'Unknown';

/** Mid-sentence after a count: "1 needs a QR scan", "2 need a QR scan". */
const HEALTH_COUNTED: Record<Health, { one: string; many: string }> = {
  connected: { one: 'connected', many: 'connected' },
  reconnecting: { one: 'reconnecting', many: 'reconnecting' },
  'needs-scan': { one: 'needs a QR scan', many: 'need a QR scan' },
  'key-rejected': { one: 'key rejected', many: 'key rejected' },
  'not-found': { one: 'not found', many: 'not found' },
  unreachable: { one: 'unreachable', many: 'unreachable' },
  unknown: { one: 'not checked yet', many: 'not checked yet' },
};

/** The order health counts are told in (the summary over the agents list, the tray's tooltip). */
export const HEALTH_COUNT_ORDER: readonly Health[] = [
  'connected',
  'reconnecting',
  'needs-scan',
  'key-rejected',
  'not-found',
  'unreachable',
  'unknown',
];

/** "2 connected", "1 needs a QR scan", "3 need a QR scan". */
export function healthCount(health: Health, n: number): string {
  const w = HEALTH_COUNTED[health];
  return counted(n, w.one, w.many);
}

/** "3 agents: 2 connected, 1 needs a QR scan" (only the healths some agent has, in HEALTH_COUNT_ORDER). */
export function healthCountsLine(healths: readonly Health[]): string {
  const counts = new Map<Health, number>();
  for (const h of healths) counts.set(h, (counts.get(h) ?? 0) + 1);
  const parts = HEALTH_COUNT_ORDER.filter((h) => counts.has(h)).map((h) => healthCount(h, counts.get(h)!));
  return `${counted(healths.length, 'agent')}: ${parts.join(', ')}`;
}

// ----- deliveries --------------------------------------------------------------------------------

/** Why the receiver refused a request: "Refused — bad signature" (one word, "Refused", for every reason). */
export const REFUSED_WORDS: Record<RefusedReason, string> = {
  'not-a-hook': 'Not a hook',
  'missing-signature': 'Refused — no signature',
  'signature-mismatch': 'Refused — bad signature',
  'stale-timestamp': 'Refused — timestamp too old',
  'future-timestamp': 'Refused — timestamp in the future',
  'malformed-header': 'Refused — unreadable signature header',
  'no-secret': 'Refused — no signing secret',
  'legacy-only': 'Refused — legacy signature only',
  'rate-limited': 'Refused — too many from this sender',
  'too-large': 'Refused — body too large',
  'bad-request': 'Refused — bad request',
  'storage-unavailable': 'Refused — storage unavailable',
  registering: 'Asked to retry — registration under way',
  'unknown-agent': 'Not a hook — unknown agent',
  busy: 'Asked to retry — receiver busy',
};

/** A delivery's verdict: taken ("Verified", "Verified — duplicate …") or refused, in the refused reason's words. */
export const VERDICT_WORDS: Record<Verdict, string> = {
  verified: 'Verified',
  'verified-legacy-only': 'Verified — legacy signature only (allowed by the tunnel setting)',
  duplicate: 'Verified — duplicate (acknowledged, not passed on)',
  'missing-signature': REFUSED_WORDS['missing-signature'],
  'signature-mismatch': REFUSED_WORDS['signature-mismatch'],
  'stale-timestamp': REFUSED_WORDS['stale-timestamp'],
  'future-timestamp': REFUSED_WORDS['future-timestamp'],
  'malformed-header': REFUSED_WORDS['malformed-header'],
  'no-secret': REFUSED_WORDS['no-secret'],
  'legacy-only': REFUSED_WORDS['legacy-only'],
  simulated: 'Simulated',
};

/** The words of a verdict as the tunnel records it (a reason; unknown ones verbatim). */
export function verdictWords(reason: string): string {
  return (VERDICT_WORDS as Record<string, string>)[reason] ?? reason;
}

const MESSAGE_TYPE_WORDS: Record<string, string> = {
  text: 'Text',
  image: 'Image',
  document: 'Document',
  audio: 'Audio',
  video: 'Video',
};

/** What a delivery carries: "Text", "Image" …, or its event name. */
export function deliveryTypeWords(d: { messageType: string | null; event: string }): string {
  return d.messageType ? (MESSAGE_TYPE_WORDS[d.messageType] ?? d.messageType) : d.event || 'Delivery';
}

/** One forward's answer, as the delivery's forward state reads. */
interface ForwardLike {
  status: number | null;
  error?: string;
}

/**
 * A delivery's last forward in a few words: "Forwarded 200", "App answered 500", "App did not answer",
 * "Not forwarded"; `failed` when it did not reach the app.
 */
export function forwardWords(
  d: { forwardStatus: number | null },
  last?: Pick<ForwardLike, 'status'>,
): { words: string; failed: boolean } {
  // A forward seen live that got no answer (local app down) is a failure, not "not forwarded".
  if (last && last.status === null) return { words: 'App did not answer', failed: true };
  const s = last?.status ?? d.forwardStatus;
  if (s === null) return { words: 'Not forwarded', failed: false };
  return s >= 200 && s < 300
    ? { words: `Forwarded ${s}`, failed: false }
    : { words: `App answered ${s}`, failed: true };
}

/** One forward attempt's result: "200", "502 — …", "No answer — connection refused". */
export function attemptWords(f: ForwardLike): string {
  if (f.status === null) return `No answer${f.error ? ` — ${f.error}` : ''}`;
  return `${f.status}${f.error ? ` — ${f.error}` : ''}`;
}

// ----- incidents ---------------------------------------------------------------------------------

type Severity = 'urgent' | 'warning' | 'info';

/** An open incident's severity, the same on every screen, in the tray and on the command line. */
export const SEVERITY_WORDS: Record<Severity, string> = { urgent: 'Urgent', warning: 'Warning', info: 'Info' };

/** What an incident is, as far as its words go (the contract's IncidentDTO has all of it). */
interface IncidentLike {
  severity: Severity;
  title: string;
  openedAt: number;
  resolvedAt: number | null;
  durationMs: number | null;
  removed?: true;
  /** The member who acknowledged it (a team hub). */
  acknowledgedBy?: string;
}

/** "Urgent", "Warning", "Info" while open; "Resolved" once over; "Closed" when its agent stopped being watched. */
export function incidentStateWord(i: Pick<IncidentLike, 'severity' | 'resolvedAt' | 'removed'>): string {
  if (i.resolvedAt === null) return SEVERITY_WORDS[i.severity];
  return i.removed ? 'Closed' : 'Resolved';
}

/**
 * How long the incident has lasted: its length once over (the core's `durationMs`, from its start
 * to its end), or the time since it started while open.
 */
function incidentLength(i: Pick<IncidentLike, 'openedAt' | 'durationMs'>, now: number): string {
  return formatDuration(i.durationMs ?? now - i.openedAt);
}

/** "resolved after 40 s", "closed after 2 min (agent removed)", or "open for 5 min". */
export function incidentLengthWords(
  i: Pick<IncidentLike, 'openedAt' | 'durationMs' | 'resolvedAt' | 'removed'>,
  now: number,
): string {
  const length = incidentLength(i, now);
  if (i.resolvedAt === null) return `open for ${length}`;
  return i.removed ? `closed after ${length} (agent removed)` : `resolved after ${length}`;
}

/** The incident's length in whole seconds (the CSV's column), empty while open. */
export function incidentSeconds(i: Pick<IncidentLike, 'durationMs'>): number | '' {
  return i.durationMs === null ? '' : Math.round(i.durationMs / 1000);
}

/**
 * One line for the command line: "Warning Support desk/a1: a1 is reconnecting (open for 12 s)",
 * "Resolved Support desk/a1: a1 is back to connected after 40 s (resolved after 40 s)"; a hub's incident
 * acknowledged by a member says who: "(open for 2 min, acknowledged by bob)".
 */
export function incidentLine(i: IncidentLike, where: { team: string; agent: string }, now: number): string {
  const by = i.acknowledgedBy ? `, acknowledged by ${i.acknowledgedBy}` : '';
  return `${incidentStateWord(i)} ${where.team}/${where.agent}: ${i.title} (${incidentLengthWords(i, now)}${by})`;
}

// ----- a team hub's activity ---------------------------------------------------------------------

/**
 * What a member did on a team hub, by the action its record names (a request, or the hub's own word). The team's
 * activity lists these actions only: a read mark, a chat turn or a stopped send are recorded, not listed.
 */
export const HUB_ACTIVITY_WORDS: Readonly<Record<string, string>> = {
  'send.message': 'sent a message',
  'messages.send': 'sent a message',
  'webhook.register': 'registered a webhook',
  'webhook.restore': 'restored a webhook',
  'webhook.secretRevealed': "revealed a webhook's signing secret",
  'messages.deleteConversation': 'deleted a conversation',
  'messages.deleteAgent': "deleted an agent's conversations",
  'messages.deleteContact': "deleted a contact's conversations",
  'chat.deleteConversation': 'deleted a chat conversation',
  'messages.setRetention': 'changed how long messages are kept',
  'alerts.acknowledge': 'acknowledged an incident',
  'alerts.acknowledgeAll': 'acknowledged every incident',
  'alerts.snooze': 'snoozed the alerts',
  'alerts.unsnooze': 'resumed the alerts',
  'alerts.setQuietHours': 'set quiet hours',
  'tunnel.replay': 'replayed a delivery',
  'teams.add': 'added a team',
  'teams.update': 'changed a team',
  'teams.remove': 'removed a team',
  'agents.add': 'added an agent',
  'agents.remove': 'removed an agent',
  'settings.update': 'changed the settings',
  'member.add': 'added a member',
  'member.remove': 'removed a member',
  'member.role': "changed a member's role",
};

/** "carol deleted a conversation (agent sales: 12 messages)"; the hub's operator when no member did it. */
export function hubActivityLine(e: { member: string | null; action: string; subject: string | null }): string {
  const what = HUB_ACTIVITY_WORDS[e.action] ?? e.action;
  return `${e.member ?? "the hub's operator"} ${what}${e.subject ? ` (${e.subject})` : ''}`;
}

/** Where a registration came from, and who made it on a team hub: "webhook set", "hub, registered by alice". */
export function registrationSourceWords(e: { source: string; registeredBy?: string }): string {
  return e.registeredBy !== undefined ? `${e.source}, registered by ${e.registeredBy}` : e.source;
}

/** "Sent by alice" under a send made through a team hub. */
export function sentByWords(member: string): string {
  return `Sent by ${member}`;
}

/** What the agents of an incident group have, after their count: "1 agent needs a QR scan", "20 agents need a QR scan". */
const GROUP_WORDS: Record<string, { one: string; many: string }> = {
  'needs-scan': { one: 'needs a QR scan', many: 'need a QR scan' },
  reconnecting: { one: 'is reconnecting', many: 'are reconnecting' },
  unreachable: { one: 'cannot be checked', many: 'cannot be checked' },
  flapping: { one: 'is flapping', many: 'are flapping' },
  'key-rejected': { one: 'has its API key rejected', many: 'have their API key rejected' },
  realert: { one: 'still needs a QR scan', many: 'still need a QR scan' },
  recovered: { one: 'is back to normal', many: 'are back to normal' },
};

/**
 * An incident group in words, for a notification's title, an alert's and the Alerts screen's group
 * header: "20 agents need a QR scan", "3 agents are reconnecting" (`kind`: the incidents' kind, or
 * the alert's: a reminder, a recovery); any other kind verbatim ("2 agents: kind").
 */
export function incidentGroupWords(kind: string, n: number): string {
  const w = GROUP_WORDS[kind];
  const agents = counted(n, 'agent');
  return w ? `${agents} ${n === 1 ? w.one : w.many}` : `${agents}: ${kind}`;
}

/**
 * An alert's headline word, the same as its incident's on the screens: "Resolved" for a recovery
 * notice, else "Urgent" or "Warning" as the alert reached the person.
 */
export function alertStateWord(a: { kind: string; urgent: boolean }): string {
  if (a.kind === 'recovered') return 'Resolved';
  return SEVERITY_WORDS[a.urgent ? 'urgent' : 'warning'];
}
