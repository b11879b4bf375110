// Validation of caller input (CLI flags, IPC args) for Accounts. Errors name the field, never the value.
import { z } from 'zod';
import { AccountsError } from './errors';
import { baseUrlSchema, insecureKeyProblem } from '../url';
import { agentIdSchema, apiKeySchema, describeIssues, labelSchema, signingSecretSchema } from './schema';

const agentInput = z.object({ agentId: agentIdSchema, label: labelSchema.optional() }).transform((a) => ({ agentId: a.agentId, label: a.label ?? a.agentId }));

const addTeamInput = z.object({
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
        if (ids.has(a.agentId)) ctx.addIssue({ code: 'custom', path: [i, 'agentId'], message: `agent "${a.agentId}" is listed twice` });
        if (labels.has(a.label.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i, 'label'], message: `agent label "${a.label}" is used twice` });
        ids.add(a.agentId);
        labels.add(a.label.toLowerCase());
      });
    })
    .prefault([]),
}).superRefine((t, ctx) => {
  const problem = insecureKeyProblem(t.baseUrl, t.allowInsecureHttp);
  if (problem !== null) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `${problem} (allowInsecureHttp)` });
});

function parse<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AccountsError('INVALID', `Invalid ${what}: ${describeIssues(r.error)}`);
  return r.data;
}

export function parseAddTeam(input: unknown) {
  return parse(addTeamInput, input, 'team');
}

export function parseAddAgent(input: unknown) {
  return parse(agentInput, input, 'agent');
}

export function parseSigningSecret(input: unknown): string {
  return parse(signingSecretSchema, input, 'signing secret');
}
