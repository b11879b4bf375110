// Titles and bodies of alerts. Plain words an on-call engineer reads on a phone lock screen.
import { counted, incidentGroupWords, SEVERITY_WORDS } from '../../../src-shared/words';
import { formatDuration } from './time';
import type { Alert, AlertRules, Incident } from './types';

export function agentRef(agentId: string, phone?: string | null): string {
  return phone ? `${agentId} (+${phone})` : agentId;
}

/** A grouped alert's body lists this many of its alerts, then says how many more. */
const GROUP_LINES = 10;

/** What an incident of each kind is, mid-sentence ("a1: needs a QR scan for 2 h"). */
const KIND_WORDS: Record<Incident['kind'], string> = {
  'needs-scan': 'needs a QR scan',
  reconnecting: 'reconnecting',
  unreachable: 'not answering polls',
  'key-rejected': 'API key rejected',
  flapping: 'flapping',
};

/** One line per open incident: "- a1: needs a QR scan for 2 h". */
function stillOpenLines(open: Incident[], team: string, now: number): string {
  return open
    .map(
      (i) => `- ${incidentSubject(i, team)}: ${KIND_WORDS[i.kind] ?? i.kind} for ${formatDuration(now - i.openedAt)}`,
    )
    .join('\n');
}

export const text = {
  needsScan: (agent: string, wasLinked: boolean) => ({
    title: wasLinked ? `${agent} needs a QR scan again` : `${agent} needs a QR scan`,
    body: 'The number is not linked to WhatsApp. A person must scan a pairing QR code; retrying never helps.',
  }),
  realert: (agent: string, forMs: number) => ({
    title: `${agent} still needs a QR scan`,
    body: `Waiting for a QR scan for ${formatDuration(forMs)}. Acknowledge to stop these reminders.`,
  }),
  reconnecting: (agent: string) => ({
    title: `${agent} is reconnecting`,
    body: 'The number is still linked; the connection usually comes back on its own. Sends fail until it does.',
  }),
  recovered: (agent: string, afterMs: number) => ({
    title: `${agent} is back to connected after ${formatDuration(afterMs)}`,
    body: `${agent} is connected again; the incident is closed (its length counts from the poll that saw the drop to the one that saw it back).`,
  }),
  flapping: (agent: string, count: number, windowMin: number) => ({
    title: `${agent} is flapping`,
    body: `${count} drops in ${windowMin} min. Further drops of this agent are not alerted until it has stayed connected for ${windowMin} min.`,
  }),
  settled: (agent: string, afterMs: number) => ({
    title: `${agent} is stable again`,
    body: `Connected and stable again after ${formatDuration(afterMs)} of flapping.`,
  }),
  agentUnreachable: (agent: string) => ({
    title: `${agent} cannot be checked`,
    body: 'Polls of this agent keep failing while the rest of its team answers.',
  }),
  reachable: (agent: string, afterMs: number) => ({
    title: `${agent} can be checked again after ${formatDuration(afterMs)}`,
    body: 'Polls of this agent succeed again.',
  }),
  teamUnreachable: (team: string, agentIds: string[]) => ({
    title: `Service unreachable for team ${team}`,
    body: `No poll has succeeded for ${counted(agentIds.length, 'agent')}: ${agentIds.join(', ')}. ${agentIds.length === 1 ? 'Its' : 'Their'} last known state is kept.`,
  }),
  teamReachable: (team: string, afterMs: number) => ({
    title: `Service reachable again for team ${team} after ${formatDuration(afterMs)}`,
    body: 'Polls succeed again.',
  }),
  keyRejected: (team: string) => ({
    title: `API key rejected for team ${team}`,
    body: 'The service refuses the key; no agent of this team can be monitored until the key is replaced.',
  }),
  authOk: (team: string, afterMs: number) => ({
    title: `API key accepted again for team ${team} after ${formatDuration(afterMs)}`,
    body: 'Monitoring of the team resumed.',
  }),
  /**
   * Several alerts of one kind at once: "20 agents need a QR scan" (`total`: the incident group's
   * size so far, when later incidents joined it), then one line per alert, the first GROUP_LINES.
   */
  grouped: (kind: string, parts: Alert[], total = parts.length) => {
    const lines = parts.slice(0, GROUP_LINES).map((p) => `- ${p.urgent ? `${SEVERITY_WORDS.urgent}: ` : ''}${p.title}`);
    if (parts.length > GROUP_LINES) lines.push(`- … and ${parts.length - GROUP_LINES} more`);
    if (total > parts.length) lines.unshift(`${parts.length} more since the first alert:`);
    return { title: incidentGroupWords(kind, total), body: lines.join('\n') };
  },
  stillDown: (open: Incident[], team: string, now: number) => ({
    title: `Still down after quiet hours: ${counted(open.length, 'incident')}`,
    body: stillOpenLines(open, team, now),
  }),
  /** Open here, not posted by the app that posted the alerts before this one took over. */
  handoverStillDown: (open: Incident[], team: string, now: number) => ({
    title: `Still down when this app took over posting the alerts: ${counted(open.length, 'incident')}`,
    body: stillOpenLines(open, team, now),
  }),
  /** Open in the app that posted the alerts before, seen connected by this one when it took over. */
  handoverRecovered: (closed: Incident[], team: string, now: number) => ({
    title: `Back to normal when this app took over posting the alerts: ${counted(closed.length, 'incident')}`,
    body: closed
      .map(
        (i) =>
          `- ${incidentSubject(i, team)}: connected now (${KIND_WORDS[i.kind] ?? i.kind}, opened ${formatDuration(now - i.openedAt)} ago)`,
      )
      .join('\n'),
  }),
};

/** Who an incident is about, in words: the agent, or the team for a team-wide one. */
export function incidentSubject(i: Incident, team: string): string {
  return i.agentId ?? `team ${team}`;
}

/**
 * The words of an open incident whose alert never reached the person (held in quiet hours,
 * snoozed, within the grace period): the same words its opening alert would have had.
 */
export function incidentText(
  i: Incident,
  rules: Pick<AlertRules, 'flapCount' | 'flapWindowMinutes'>,
  team: string = i.teamId,
): { title: string; body: string } {
  if (i.agentId === null)
    return i.kind === 'key-rejected' ? text.keyRejected(team) : text.teamUnreachable(team, i.agentIds);
  const agent = agentRef(i.agentId);
  switch (i.kind) {
    case 'needs-scan':
      return text.needsScan(agent, false);
    case 'reconnecting':
      return text.reconnecting(agent);
    case 'unreachable':
      return text.agentUnreachable(agent);
    case 'key-rejected':
      return text.keyRejected(team);
    case 'flapping':
      return text.flapping(agent, rules.flapCount, rules.flapWindowMinutes);
  }
}
