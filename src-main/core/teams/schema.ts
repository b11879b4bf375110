// zod schemas for the non-secret config file and the app settings. The file is schema-versioned;
// loading strips unknown keys (forward-compatible within a version), updates reject them.
import { z } from 'zod';
import { hasUnsafeCharacters } from '../../../src-shared/terminal-text';
import { DEFAULT_TUNNEL_PORT, LABEL_MAX_LENGTH } from '../../../src-shared/limits';
import { normaliseAgentLabels } from '../../../src-shared/agent-labels';
import { baseUrlSchema, storedUrlSchema } from '../url';
import { agentIdSchema } from './agent-id';

export const CONFIG_SCHEMA_VERSION = 1;

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time HH:MM');

// Messages here are phrases that follow the field's name (core/input-words.ts puts the name first).
const label = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(LABEL_MAX_LENGTH, `must be at most ${LABEL_MAX_LENGTH} characters`)
  .refine((s) => !hasUnsafeCharacters(s), 'must not contain control or text-direction characters');

const teamIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be letters, digits, _ or -');

export const labelSchema = label;

/** An agent's labels, normalised (src-shared/agent-labels.ts); a label that breaks the rule is named. */
export const agentLabelsSchema = z.array(z.unknown()).transform((input, ctx) => {
  const r = normaliseAgentLabels(input);
  if (r.ok) return r.labels;
  ctx.addIssue({ code: 'custom', message: r.problem });
  return z.NEVER;
});

export const apiKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(4096, 'is too long')
  .refine((s) => !/\s/.test(s), 'must not contain spaces or line breaks')
  .refine((s) => !hasUnsafeCharacters(s), 'must not contain control or text-direction characters');

export const signingSecretSchema = z.string().min(1, 'must not be empty').max(4096, 'is too long');

function settingsSchema(strict: boolean) {
  const obj = strict ? z.strictObject : z.object;
  const quietHours = obj({ start: hhmm, end: hhmm });
  const alertRules = obj({
    reconnectGraceSec: z.number().int().min(0).max(3600).default(0),
    repeatDropGraceSec: z.number().int().min(0).max(3600).default(60),
    realertMinutes: z.number().int().min(0).max(1440).default(15),
    flapCount: z.number().int().min(2).max(100).default(3),
    flapWindowMinutes: z.number().int().min(1).max(1440).default(10),
    quietHours: quietHours.nullable().default(null),
  });
  return obj({
    pollIntervalSec: z.number().int().min(5).max(3600).default(15),
    fastPollIntervalSec: z.number().int().min(1).max(60).default(2),
    // One port, kept: 0 ("any free port", the old default) is read as the default port and not accepted anew.
    tunnelPort: strict
      ? z.number().int().min(1).max(65535).default(DEFAULT_TUNNEL_PORT)
      : z
          .number()
          .int()
          .min(0)
          .max(65535)
          .default(DEFAULT_TUNNEL_PORT)
          .transform((p) => (p === 0 ? DEFAULT_TUNNEL_PORT : p)),
    startAtLogin: z.boolean().default(false),
    theme: z.enum(['system', 'light', 'dark']).default('system'),
    alertRules: alertRules.prefault({}),
    alertWebhookUrl: storedUrlSchema.nullable().default(null),
    alertmanagerUrl: storedUrlSchema.nullable().default(null),
    metricsPort: z.number().int().min(0).max(65535).nullable().default(null),
    installId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be 8–128 letters, digits, _ or -'),
  }).refine((s) => s.fastPollIntervalSec <= s.pollIntervalSec, {
    message: 'must not exceed the poll interval',
    path: ['fastPollIntervalSec'],
  });
}

export const settingsLoadSchema = settingsSchema(false);
export const settingsUpdateSchema = settingsSchema(true);

const agentConfig = z.object({
  agentId: agentIdSchema,
  label,
  /** Keychain account of the agent's signing secrets, once one was set. */
  signingSecretRef: z.string().min(1).nullable().default(null),
  /** Polled at the fast interval all the time, so short drops are seen. */
  watchClosely: z.boolean().default(false),
  /** Words to find the agent by (absent in configs written before labels: none). */
  labels: agentLabelsSchema.default([]),
});

const teamConfig = z.object({
  id: teamIdSchema,
  label,
  baseUrl: baseUrlSchema,
  keyHint: z.string().max(8),
  /** Keychain account of the team's API key. */
  apiKeyRef: z.string().min(1),
  /** The person allowed the key to go over plain http:// to a host other than this machine. */
  allowInsecureHttp: z.boolean().default(false),
  agents: z.array(agentConfig).default([]),
});

export const configFileSchema = z
  .object({
    schemaVersion: z.literal(CONFIG_SCHEMA_VERSION),
    settings: settingsLoadSchema,
    teams: z.array(teamConfig).default([]),
  })
  .superRefine((cfg, ctx) => {
    const ids = new Set<string>();
    const labels = new Set<string>();
    cfg.teams.forEach((t, i) => {
      if (ids.has(t.id))
        ctx.addIssue({ code: 'custom', path: ['teams', i, 'id'], message: `duplicate team id "${t.id}"` });
      if (labels.has(t.label.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: ['teams', i, 'label'], message: `duplicate team label "${t.label}"` });
      ids.add(t.id);
      labels.add(t.label.toLowerCase());
      const agentIds = new Set<string>();
      const agentLabels = new Set<string>();
      t.agents.forEach((a, j) => {
        if (agentIds.has(a.agentId))
          ctx.addIssue({
            code: 'custom',
            path: ['teams', i, 'agents', j, 'agentId'],
            message: `duplicate agent id "${a.agentId}"`,
          });
        if (agentLabels.has(a.label.toLowerCase()))
          ctx.addIssue({
            code: 'custom',
            path: ['teams', i, 'agents', j, 'label'],
            message: `duplicate agent label "${a.label}"`,
          });
        agentIds.add(a.agentId);
        agentLabels.add(a.label.toLowerCase());
      });
    });
  });

export type ConfigFile = z.output<typeof configFileSchema>;
export type TeamConfig = ConfigFile['teams'][number];
export type AgentConfig = TeamConfig['agents'][number];
