// Flag validation with zod at the edge: commander hands over strings, these schemas turn them into
// typed values or a UsageError naming the flag (exit 2, nothing sent).
import { z, type ZodType } from 'zod';
import { normalizePhoneDigits, normalizeRecipient } from '../app/service';
import { UsageError } from './errors';
import { AGENT_ID_PATTERN, AGENT_ID_RULE } from '../../src-shared/limits';

function flagName(key: PropertyKey): string {
  return `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Parses commander's opts() with a schema; the error names each bad flag. */
export function parseFlags<T>(schema: ZodType<T>, opts: unknown): T {
  const r = schema.safeParse(opts);
  if (r.success) return r.data;
  const parts = r.error.issues.map((i) => {
    const key = i.path[0];
    return key === undefined ? i.message : `${flagName(key)}: ${i.message}`;
  });
  throw new UsageError(parts.join('; '));
}

export const envVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'expected an environment variable name (letters, digits, underscore)');

/** A saved team, by id or label (--team). */
export const teamName = z.string().trim().min(1, 'expected a team id or label').max(200);

/** An agent, by id or (with --team) label: the one agent id rule (src-shared/limits). */
export const agentId = z
  .string()
  .trim()
  .regex(AGENT_ID_PATTERN, `expected an agent id: ${AGENT_ID_RULE.replace(/^must be /, '')}`);

export const onOff = z.enum(['on', 'off'], { error: 'expected on or off' }).transform((v) => v === 'on');

/** A whole number given as a string, within bounds. */
export function intString(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'expected a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `expected a number from ${min} to ${max}`);
}

/** A host name or IP address to listen on. */
export const hostName = z.string().regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'expected a host name or IP address');

/** A positive number of seconds (decimals allowed) given as a string. */
export const secondsString = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected a number of seconds')
  .transform(Number)
  .refine((n) => n > 0 && n <= 86_400, 'expected more than 0 and at most 86400 seconds');

function zodRefineWith(fn: (s: string) => unknown) {
  return (s: string, ctx: z.RefinementCtx) => {
    try {
      fn(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
    }
  };
}

/** A send recipient (E.164 number or JID), checked locally with normalizeRecipient. */
export const recipient = z
  .string()
  .superRefine(zodRefineWith(normalizeRecipient))
  .transform((s) => normalizeRecipient(s));

/** A phone number for the contact check, as digits. */
export const phone = z
  .string()
  .superRefine(zodRefineWith(normalizePhoneDigits))
  .transform((s) => normalizePhoneDigits(s));
