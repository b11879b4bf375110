// Monitor incidents and alerts → the contract's IncidentDTO and 'alert' events.
// The monitor emits an incident update and then, in the same synchronous step, the alert that
// words it; updates are therefore collected and published on the next microtask, with the text of
// the alert when there was one (held or snoozed alerts leave the default wording).
import type { Alert, Incident, IncidentUpdate } from '../../core/monitor';
import type { AlertEventDTO, IncidentDTO, IncidentSeverity } from '../../../src-shared/contract';

interface Wording {
  title: string;
  message: string;
  urgent: boolean;
}

function defaultWording(i: Incident): Wording {
  const who = i.agentId ?? (i.agentIds.join(', ') || `team ${i.teamId}`);
  switch (i.kind) {
    case 'needs-scan':
      return { title: `${who} needs a QR scan`, message: 'The number is not linked to WhatsApp; a person must scan a pairing QR code.', urgent: false };
    case 'reconnecting':
      return { title: `${who} is reconnecting`, message: 'The number is still linked; the connection usually comes back on its own.', urgent: false };
    case 'unreachable':
      return { title: `${who} cannot be checked`, message: 'Polls keep failing; the last known state is kept.', urgent: false };
    case 'auth-error':
      return { title: `API key rejected for team ${i.teamId}`, message: 'The service refuses the key; replace it to resume monitoring.', urgent: false };
    case 'flapping':
      return { title: `${who} is flapping`, message: 'The connection keeps dropping and coming back.', urgent: false };
  }
}

const ESCALATING = new Set(['needs-scan', 'unreachable', 'auth-error']);

export class AlertMapper {
  private readonly words = new Map<string, Wording>();
  private pending: IncidentUpdate[] = [];
  private scheduled = false;
  private readonly open = new Map<string, Incident>();

  constructor(
    private readonly publish: (e: AlertEventDTO) => void,
    private readonly now: () => number,
    private readonly escalateAfterMin: () => number,
  ) {}

  onIncident(u: IncidentUpdate): void {
    if (u.change === 'resolved') this.open.delete(u.incident.id);
    else this.open.set(u.incident.id, u.incident);
    this.pending.push(u);
    this.schedule();
  }

  onAlert(a: Alert): void {
    const ids = [a.incidentId, ...(a.parts ?? []).map((p) => p.incidentId)].filter((x): x is string => x !== undefined);
    for (const id of ids) {
      const prev = this.words.get(id);
      const w: Wording = { title: a.title, message: a.body, urgent: a.urgent || (prev?.urgent ?? false) };
      this.words.set(id, w);
      // An alert about an incident that did not change in this step (a re-alert, an escalation):
      // publish it as an update so the in-app list shows the newest words.
      const inc = this.open.get(id);
      if (inc && !this.pending.some((p) => p.incident.id === id)) this.pending.push({ change: 'updated', incident: inc });
    }
    if (ids.length > 0) this.schedule();
  }

  toDTO(i: Incident): IncidentDTO {
    const w = this.words.get(i.id) ?? defaultWording(i);
    const escalateMs = this.escalateAfterMin() * 60_000;
    const overdue = ESCALATING.has(i.kind) && i.resolvedAt === null && this.now() - i.openedAt >= escalateMs;
    const severity: IncidentSeverity = w.urgent || overdue ? 'urgent' : 'warning';
    return {
      id: i.id,
      teamId: i.teamId,
      agentId: i.agentId ?? i.agentIds[0] ?? '',
      kind: i.kind,
      severity,
      title: w.title,
      message: w.message,
      openedAt: i.openedAt,
      acknowledgedAt: i.acknowledgedAt,
      resolvedAt: i.resolvedAt,
    };
  }

  /** Publishes what is pending now (tests; also run on the microtask). */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    for (const u of batch) {
      this.publish({ change: u.change, incident: this.toDTO(u.incident) });
      if (u.change === 'resolved') this.words.delete(u.incident.id);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }
}
