// Validation of caller input (CLI flags, IPC args) for TeamStore. Errors name the field, never the value.
import { z } from 'zod';
import { TeamStoreError } from './errors';
import { inputProblem, ruleWords, type FieldNames } from '../input-words';
import { baseUrlSchema, insecureKeyProblem } from '../url';
import { agentIdSchema } from './agent-id';
import { agentLabelsSchema, apiKeySchema, labelSchema, signingSecretSchema } from './schema';
import { AGENT_LABELS_MAX } from '../../../src-shared/agent-labels';

const agentInput = z
  .object({ agentId: agentIdSchema, label: labelSchema.optional(), labels: agentLabelsSchema.optional() })
  .transform((a) => ({ agentId: a.agentId, label: a.label ?? a.agentId, labels: a.labels ?? [] }));

const labelsChangeInput = z
  .object({
    labels: agentLabelsSchema.optional(),
    add: agentLabelsSchema.optional(),
    remove: agentLabelsSchema.optional(),
  })
  .transform((c) => ({ ...(c.labels ? { labels: c.labels } : {}), add: c.add ?? [], remove: c.remove ?? [] }));

const addTeamInput = z
  .object({
    label: labelSchema,
    baseUrl: baseUrlSchema,
    apiKey: apiKeySchema,
    allowInsecureHttp: z.boolean().default(false),
    agents: z
      .array(agentInput)
      .min(1, 'at least one agent is needed to check the key against')
      .max(200)
      .superRefine((agents, ctx) => {
        const ids = new Set<string>();
        const labels = new Set<string>();
        agents.forEach((a, i) => {
          if (ids.has(a.agentId))
            ctx.addIssue({ code: 'custom', path: [i, 'agentId'], message: `agent "${a.agentId}" is listed twice` });
          if (labels.has(a.label.toLowerCase()))
            ctx.addIssue({ code: 'custom', path: [i, 'label'], message: `agent label "${a.label}" is used twice` });
          ids.add(a.agentId);
          labels.add(a.label.toLowerCase());
        });
      })
      .prefault([]),
  })
  .superRefine((t, ctx) => {
    const problem = insecureKeyProblem(t.baseUrl, t.allowInsecureHttp);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: problem });
  });

const editTeamInput = z
  .object({
    label: labelSchema.optional(),
    baseUrl: baseUrlSchema.optional(),
    apiKey: apiKeySchema.optional(),
    allowInsecureHttp: z.boolean().optional(),
  })
  .refine(
    (t) =>
      t.label !== undefined || t.baseUrl !== undefined || t.apiKey !== undefined || t.allowInsecureHttp !== undefined,
    'nothing to change: give a new label, base URL, key or insecure-http choice',
  );

/** A refused input: an INVALID error in people's words, with the field's path. */
function parse<T>(schema: z.ZodType<T>, input: unknown, names: FieldNames = {}): T {
  const r = schema.safeParse(input, { error: ruleWords });
  if (!r.success) {
    const problem = inputProblem(r.error, names);
    throw new TeamStoreError(
      'INVALID',
      problem.message,
      problem.field !== undefined ? { field: problem.field } : undefined,
    );
  }
  return r.data;
}

export function parseAddTeam(input: unknown) {
  return parse(addTeamInput, input, { label: 'Team name', 'agents.label': 'Agent label' });
}

export function parseEditTeam(input: unknown) {
  return parse(editTeamInput, input, { label: 'Team name' });
}

export function parseAddAgent(input: unknown) {
  return parse(agentInput, input);
}

export function parseLabelsChange(input: unknown) {
  return parse(labelsChangeInput, input);
}

/** Labels already normalised one by one, joined: without repeats, sorted, refused beyond the most an agent has. */
export function checkedLabels(labels: readonly string[]): string[] {
  const all = [...new Set(labels)].sort();
  if (all.length > AGENT_LABELS_MAX)
    throw new TeamStoreError('INVALID', `An agent has at most ${AGENT_LABELS_MAX} labels (${all.length} given).`, {
      field: 'labels',
    });
  return all;
}

export function parseSigningSecret(input: unknown): string {
  return parse(signingSecretSchema, input, { '': 'Signing secret' });
}
