// How an alert and an incident read, wherever they are shown: the CLI's `monitor` lines, the chat
// webhook's text, the desktop notification and the in-app list (through the contract's incident
// DTOs), and Alertmanager's annotations. The words themselves are made once, by the alert policy
// (policy-text.ts), with the team's label; these functions only choose and arrange them.
import { alertStateWord } from '../../../src-shared/words';
import { incidentText } from './policy-text';
import type { Alert, AlertRules, Incident } from './types';

export interface AlertWords {
  /**
   * "Urgent [needs-scan] Support desk": the incident's word as the screens show it (Urgent, Warning,
   * Resolved), the alert's kind and the team's label (never its internal id).
   */
  headline: string;
  title: string;
  body: string;
  /** The headline and the title on one line: "Urgent [needs-scan] Support desk: a1 needs a QR scan". */
  line: string;
}

/** The words of one alert. */
export function alertWords(a: Alert): AlertWords {
  const headline = `${alertStateWord(a)} [${a.kind}] ${a.teamLabel}`;
  return { headline, title: a.title, body: a.body, line: `${headline}: ${a.title}` };
}

export interface IncidentWording {
  title: string;
  body: string;
  /** An urgent alert about the incident reached the person. */
  urgent: boolean;
}

/**
 * The words of each open incident: those of the last alert about it (each part of a grouped alert
 * words its own incident; a still-down summary adds urgency, not words), or, for an incident no
 * alert has worded yet (held in quiet hours, snoozed, within the grace period), the words its
 * opening alert would have had.
 */
export class IncidentWords {
  private readonly words = new Map<string, IncidentWording>();

  /** Takes an alert's words; answers the incidents it is about. */
  record(a: Alert): string[] {
    const ids: string[] = [];
    for (const p of a.parts ?? [a]) {
      const id = p.incidentId;
      if (id === undefined) continue;
      ids.push(id);
      const prev = this.words.get(id);
      if (a.kind !== 'still-down')
        this.words.set(id, { title: p.title, body: p.body, urgent: p.urgent || (prev?.urgent ?? false) });
      else if (p.urgent && prev) prev.urgent = true;
    }
    return ids;
  }

  /** An incident's words now (`team`: the team's label). */
  of(i: Incident, rules: Pick<AlertRules, 'flapCount' | 'flapWindowMinutes'>, team: string): IncidentWording {
    const w = this.words.get(i.id);
    if (w) return { ...w };
    const t = incidentText(i, rules, team);
    return { title: t.title, body: t.body, urgent: i.urgent === true };
  }

  /** Drops a resolved incident's words. */
  forget(incidentId: string): void {
    this.words.delete(incidentId);
  }
}
