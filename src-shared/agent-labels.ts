// An agent's labels (`billing`, `eu-west`, `tier.1`): short words a person gives an agent to find it among many
// (the Agents screen's label filter, `status --with-label`). One rule for every runtime: the team store keeps
// them normalised, the command line and the renderer normalise what a person types the same way.

/** A label: a lowercase letter or digit first, then lowercase letters, digits or `. _ -`, at most 32 characters. */
const AGENT_LABEL_PATTERN = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** The most labels one agent has. */
export const AGENT_LABELS_MAX = 16;

/** The rule above in words, after the label ("label "x y" must be …"). */
export const AGENT_LABEL_RULE = 'must be 1–32 lowercase letters, digits or . _ - (a letter or digit first)';

export type AgentLabelsResult = { ok: true; labels: string[] } | { ok: false; problem: string };

/** One label as it is kept: trimmed and lowercased (not checked). */
export function normaliseAgentLabel(label: string): string {
  return label.trim().toLowerCase();
}

/**
 * Labels as they are kept: each trimmed and lowercased, checked against the rule, without repeats, sorted, at
 * most AGENT_LABELS_MAX. The first label that breaks the rule is named in the problem.
 */
export function normaliseAgentLabels(input: readonly unknown[]): AgentLabelsResult {
  const kept = new Set<string>();
  for (const raw of input) {
    if (typeof raw !== 'string') return { ok: false, problem: 'every label must be text' };
    const label = normaliseAgentLabel(raw);
    if (!AGENT_LABEL_PATTERN.test(label))
      return { ok: false, problem: `label ${JSON.stringify(raw)} ${AGENT_LABEL_RULE}` };
    kept.add(label);
  }
  if (kept.size > AGENT_LABELS_MAX)
    return { ok: false, problem: `an agent has at most ${AGENT_LABELS_MAX} labels (${kept.size} given)` };
  return { ok: true, labels: [...kept].sort() };
}

/** Labels from a list a person typed: commas or spaces between them, each item possibly given several times. */
export function splitAgentLabels(items: readonly string[]): string[] {
  return items.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== '');
}
