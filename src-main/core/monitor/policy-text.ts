// Titles and bodies of alerts. Plain words an on-call engineer reads on a phone lock screen.
import { formatDuration } from './time';
import type { Alert, AlertRules, Incident } from './types';

export function agentRef(agentId: string, phone?: string | null): string {
  return phone ? `${agentId} (+${phone})` : agentId;
}

export const text = {
  needsScan: (agent: string, wasLinked: boolean) => ({
    title: wasLinked ? `${agent} was unlinked — a QR scan is needed` : `${agent} needs a QR scan`,
    body: 'The number is not linked to WhatsApp. A person must scan a pairing QR code; retrying never helps.',
  }),
  realert: (agent: string, forMs: number) => ({
    title: `${agent} still needs a QR scan`,
    body: `Unlinked for ${formatDuration(forMs)}. Acknowledge to stop these reminders.`,
  }),
  reconnecting: (agent: string) => ({
    title: `${agent} is reconnecting`,
    body: 'The number is still linked; the connection usually comes back on its own. Sends fail until it does.',
  }),
  recovered: (agent: string, afterMs: number) => ({
    title: `${agent} is back to connected after ${formatDuration(afterMs)}`,
    body: `${agent} is connected again; the incident is closed.`,
  }),
  flapping: (agent: string, count: number, windowMin: number) => ({
    title: `${agent} is flapping`,
    body: `${count} incidents in ${windowMin} min. Further drops of this agent are not alerted one by one until it settles.`,
  }),
  settled: (agent: string, afterMs: number) => ({
    title: `${agent} stopped flapping`,
    body: `Connected and stable again after ${formatDuration(afterMs)} of flapping.`,
  }),
  agentUnreachable: (agent: string) => ({
    title: `${agent} cannot be checked`,
    body: 'Polls of this agent keep failing while the rest of its team answers.',
  }),
  teamUnreachable: (teamId: string, agentIds: string[]) => ({
    title: `Service unreachable for team ${teamId}`,
    body: `No poll has succeeded for ${agentIds.length} agent(s): ${agentIds.join(', ')}. Their last known state is kept.`,
  }),
  teamReachable: (teamId: string, afterMs: number) => ({
    title: `Service reachable again for team ${teamId} after ${formatDuration(afterMs)}`,
    body: 'Polls succeed again.',
  }),
  authError: (teamId: string) => ({
    title: `API key rejected for team ${teamId}`,
    body: 'The service refuses the key; no agent of this team can be monitored until the key is replaced.',
  }),
  authOk: (teamId: string, afterMs: number) => ({
    title: `API key accepted again for team ${teamId} after ${formatDuration(afterMs)}`,
    body: 'Monitoring of the team resumed.',
  }),
  grouped: (parts: Alert[]) => ({
    title: `${parts.length} changes: ${parts.map((p) => p.title).join('; ')}`,
    body: parts.map((p) => `- ${p.urgent ? '[urgent] ' : ''}${p.title}`).join('\n'),
  }),
  stillDown: (open: Incident[], now: number) => ({
    title: `Still down after quiet hours: ${open.length} incident(s)`,
    body: open
      .map((i) => `- ${i.agentId ?? `team ${i.teamId}`}: ${i.kind} for ${formatDuration(now - i.openedAt)}`)
      .join('\n'),
  }),
};

/**
 * The words of an open incident whose alert never reached the person (held in quiet hours,
 * snoozed, within the grace period): the same words its opening alert would have had.
 */
export function incidentText(i: Incident, rules: Pick<AlertRules, 'flapCount' | 'flapWindowMinutes'>): { title: string; body: string } {
  if (i.agentId === null) return i.kind === 'auth-error' ? text.authError(i.teamId) : text.teamUnreachable(i.teamId, i.agentIds);
  const agent = agentRef(i.agentId);
  switch (i.kind) {
    case 'needs-scan':
      return text.needsScan(agent, false);
    case 'reconnecting':
      return text.reconnecting(agent);
    case 'unreachable':
      return text.agentUnreachable(agent);
    case 'auth-error':
      return text.authError(i.teamId);
    case 'flapping':
      return text.flapping(agent, rules.flapCount, rules.flapWindowMinutes);
  }
}
