import { describe, expect, it } from 'vitest';
import { alertWords } from '../../../src-main/core/monitor';
import type { Alert } from '../../../src-main/core/monitor';
import { HEALTHS, REFUSED_REASONS, VERDICTS } from '../../../src-shared/vocabulary';
import {
  alertStateWord,
  healthCount,
  healthCountsLine,
  HEALTH_SHORT,
  incidentGroupWords,
  incidentLengthWords,
  incidentLine,
  incidentSeconds,
  incidentStateWord,
  REFUSED_WORDS,
  SEVERITY_WORDS,
  VERDICT_WORDS,
  verdictWords,
} from '../../../src-shared/words';

const incident = {
  severity: 'warning' as const,
  title: 'a1 is reconnecting',
  openedAt: 1_000,
  resolvedAt: null,
  durationMs: null,
};

const alert = (over: Partial<Alert>): Alert => ({
  id: 'al-1',
  kind: 'reconnecting',
  urgent: false,
  teamId: 't1',
  teamLabel: 'On call',
  agentIds: ['a1'],
  title: 'a1 is reconnecting',
  body: '',
  at: 0,
  ...over,
});

describe('severity: one word on the screens and on the command line', () => {
  it('an open incident reads its severity word; the alert line about it says the same word', () => {
    expect(SEVERITY_WORDS).toEqual({ urgent: 'Urgent', warning: 'Warning', info: 'Info' });
    expect(incidentStateWord(incident)).toBe('Warning');
    expect(incidentStateWord({ ...incident, severity: 'urgent' })).toBe('Urgent');
    expect(alertWords(alert({})).headline.split(' ')[0]).toBe(SEVERITY_WORDS.warning);
    expect(alertWords(alert({ urgent: true, kind: 'needs-scan' })).headline.split(' ')[0]).toBe(SEVERITY_WORDS.urgent);
    expect(alertStateWord({ kind: 'recovered', urgent: false })).toBe(
      incidentStateWord({ ...incident, resolvedAt: 2_000 }),
    );
    expect(incidentStateWord({ ...incident, resolvedAt: 2_000, removed: true })).toBe('Closed');
  });

  it('the command line says an incident as the screens do: severity, where, title and length', () => {
    expect(incidentLine(incident, { team: 'On call', agent: 'a1' }, 13_000)).toBe(
      'Warning On call/a1: a1 is reconnecting (open for 12 s)',
    );
    const over = { ...incident, resolvedAt: 71_000, durationMs: 40_000 };
    expect(incidentLengthWords(over, 999_999)).toBe('resolved after 40 s');
    expect(incidentLengthWords({ ...over, removed: true }, 0)).toBe('closed after 40 s (agent removed)');
    expect(incidentSeconds(over)).toBe(40);
    expect(incidentSeconds(incident)).toBe('');
  });
});

describe('health: the tray, the summary and the badges count in the same words', () => {
  it('needs a QR scan, in the singular and the plural', () => {
    expect(HEALTH_SHORT['needs-scan']).toBe('Needs a QR scan');
    expect(healthCount('needs-scan', 1)).toBe('1 needs a QR scan');
    expect(healthCount('needs-scan', 2)).toBe('2 need a QR scan');
    for (const h of HEALTHS) expect(healthCount(h, 1).slice(2).toLowerCase()).toBe(HEALTH_SHORT[h].toLowerCase());
    expect(healthCountsLine(['needs-scan', 'connected', 'connected'])).toBe('3 agents: 2 connected, 1 needs a QR scan');
  });
});

describe('incident groups: counted in the words of their kind', () => {
  it('says a group as many agents and one agent as one, the same words the notifications and the screen use', () => {
    expect(incidentGroupWords('needs-scan', 20)).toBe('20 agents need a QR scan');
    expect(incidentGroupWords('needs-scan', 1)).toBe('1 agent needs a QR scan');
    expect(incidentGroupWords('reconnecting', 3)).toBe('3 agents are reconnecting');
    expect(incidentGroupWords('realert', 19)).toBe('19 agents still need a QR scan');
    expect(incidentGroupWords('recovered', 2)).toBe('2 agents are back to normal');
    expect(incidentGroupWords('something-new', 2)).toBe('2 agents: something-new');
  });
});

describe('verdicts: one word for a refusal', () => {
  it('a refused verdict reads as its refused reason, "Refused — …", on the screens and the command line', () => {
    for (const v of VERDICTS) {
      if (v.startsWith('verified') || v === 'duplicate' || v === 'simulated') continue;
      expect(VERDICT_WORDS[v]).toBe(REFUSED_WORDS[v as (typeof REFUSED_REASONS)[number]]);
      expect(VERDICT_WORDS[v]).toMatch(/^Refused — /);
      expect(verdictWords(v)).toBe(VERDICT_WORDS[v]);
    }
    for (const r of REFUSED_REASONS) expect(REFUSED_WORDS[r]).toMatch(/^(Refused|Not a hook|Asked to retry)\b/);
    expect(verdictWords('duplicate')).toBe(VERDICT_WORDS.duplicate);
    expect(verdictWords('some-new-reason')).toBe('some-new-reason');
  });
});
