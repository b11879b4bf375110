// Refused input in people's words: the field by the name its form shows ("Team name", "Image URL")
// and the rule it broke, said plainly ("must be at most 64 characters"). The one wording of zod
// issues about what a person typed: the app's request checks and the team store inputs both use it.
// The field's path is kept beside the words, for a form to mark the field; in a file edited by
// hand, the path says where the rule was broken.
import type { z } from 'zod';

/** The name of each input field as its form shows it, by its key in the arguments. */
const FIELD_NAMES: Record<string, string> = {
  label: 'Label',
  agentId: 'Agent ID',
  agents: 'Agent IDs',
  teamId: 'Team',
  baseUrl: 'Service address',
  apiKey: 'API key',
  allowInsecureHttp: 'Allow plain HTTP',
  to: 'Recipient',
  phone: 'Phone number',
  from: 'From number',
  text: 'Message text',
  message: 'Message',
  caption: 'Caption',
  imageUrl: 'Image URL',
  documentUrl: 'Document URL',
  documentFilename: 'Document file name',
  mediaUrl: 'Media URL',
  filename: 'File name',
  publicUrl: 'Public URL',
  forwardTo: 'Forward address',
  alertWebhookUrl: 'Alert webhook URL',
  alertmanagerUrl: 'Alertmanager URL',
  metricsPort: 'Metrics port',
  pollIntervalSec: 'Poll interval',
  fastPollIntervalSec: 'Fast poll interval',
  tunnelPort: 'Tunnel port',
  startAtLogin: 'Start at login',
  theme: 'Theme',
  quietHours: 'Quiet hours',
  installId: 'Install ID',
  escalateAfterMin: 'Escalate after',
  reconnectGraceSec: 'Reconnect grace period',
  repeatDropGraceSec: 'Repeat drop grace period',
  realertMinutes: 'Re-alert interval',
  flapCount: 'Drops that count as flapping',
  flapWindowMinutes: 'Flapping window',
  start: 'Start time',
  end: 'End time',
  minutes: 'Minutes',
  authtoken: 'ngrok authtoken',
  domain: 'Domain',
  command: 'Tunnel command',
  body: 'Body',
  userId: 'User ID',
  clientRef: 'Client reference',
  signingSecret: 'Signing secret',
};

/**
 * Names that differ by where the field sits, by its path without list positions ("agents.label");
 * '' names an input that is one value (a secret given alone).
 */
export type FieldNames = Readonly<Record<string, string>>;

export interface InputProblem {
  /** The path of the field at fault ("label", "agents.0.agentId"); absent for the input as a whole. */
  field?: string;
  /** A sentence for people: "Team name must be at most 64 characters." */
  message: string;
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'on or off (true or false)',
  array: 'a list',
  object: 'a set of fields',
};

/**
 * The rule an issue broke, as a phrase that follows the field's name ("must be at most 64
 * characters"). A zod error map: pass it to safeParse as `{ error: ruleWords }`, so a message a
 * schema gives itself is kept and every other issue is said this way.
 */
export const ruleWords: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'too_big': {
      const max = Number(issue.maximum);
      const most = issue.inclusive === false ? `less than ${max}` : `at most ${max}`;
      if (issue.origin === 'string')
        return `must be ${issue.inclusive === false ? `shorter than ${plural(max, 'character')}` : `at most ${plural(max, 'character')}`}`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must list ${most}`;
      return `must be ${most}`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      const least = issue.inclusive === false ? `more than ${min}` : `at least ${min}`;
      if (issue.origin === 'string')
        return min <= 1 ? 'must not be empty' : `must be at least ${plural(min, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return min <= 1 ? 'must list at least one' : `must list ${least}`;
      return `must be ${least}`;
    }
    case 'invalid_type':
      return issue.input === undefined ? 'is missing' : `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}`
        : `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return 'is not in the expected form';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `Not accepted here: ${issue.keys.join(', ')}`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    default:
      return 'is not valid';
  }
};

/** A phrase that follows the field's name ("must …", "is …"); anything else is a sentence of its own. */
const PREDICATE = /^(must|is|are|needs|has|cannot|may)\b/;

/** `pollIntervalSec` → "Poll interval sec": a name for a key without one of its own. */
function keyWords(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The field's name as people know it: by its place (`names`), else by its key. */
function fieldName(path: ReadonlyArray<PropertyKey>, names: FieldNames = {}): string | undefined {
  const keys = path.filter((p): p is string => typeof p === 'string');
  const own = names[keys.join('.')];
  if (own !== undefined) return own;
  const key = keys.at(-1);
  return key === undefined ? undefined : (FIELD_NAMES[key] ?? keyWords(key));
}

function sentence(s: string): string {
  const t = s.trim();
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** The first issue of a refused input, in words for people, with the field's path for the form. */
export function inputProblem(err: z.ZodError, names: FieldNames = {}): InputProblem {
  const issue = err.issues[0];
  if (!issue) return { message: 'The input is not valid.' };
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  const name = fieldName(issue.path, names);
  const rule = issue.message.trim();
  const message = name !== undefined && PREDICATE.test(rule) ? sentence(`${name} ${rule}`) : sentence(rule);
  return field !== undefined ? { field, message } : { message };
}

/** The rule without a closing full stop, to be listed after its path. */
const phrase = (s: string): string => s.trim().replace(/[.]+$/, '');

/**
 * Where in a file each rule was broken and the rule itself, for a file people fix by hand:
 * "teams.0.baseUrl: must be an http(s) URL, not gopher:; settings.pollIntervalSec: must be at least 5".
 * At most `max` issues, then how many more. The typed value is never shown; only a schema's own
 * message may name one (a duplicate label).
 */
export function issuesAt(err: z.ZodError, max = 3): string {
  const listed = err.issues
    .slice(0, max)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : 'top level'}: ${phrase(i.message)}`);
  const more = err.issues.length - listed.length;
  return more > 0 ? `${listed.join('; ')} (and ${more} more)` : listed.join('; ');
}
