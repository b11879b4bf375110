// What this install knows of where an agent's deliveries go, in the same words in every shell (the
// tunnel screen, `listen`, `webhook history`). The service keeps one webhook URL per agent, offers no
// way to read it, and issues a new signing secret at every registration: all that is known is the
// registration history this install kept (core/tunnel/registration-history.ts).
// - describeRegistration: "registered here at 10:42 (this receiver)", "registered by this install to
//   https://… on …" (on a team hub: "registered by ada through the team hub to …"), a registration of this receiver that it no longer answers (port changed,
//   exposure gone), or "unknown: the service cannot tell us; another app may be receiving".
// - takeoverQuestion: what is asked before a registration replaces the agent's webhook.
// - previousRegistration: the URL "Restore previous URL" goes back to.
import { shownWebhookUrl } from '../../core/tunnel/register';
import type { RegistrationRecord } from '../../core/tunnel/registration-history';
import { isRedactedUrl } from '../../core/url';
import { registrationSourceWords } from '../../../src-shared/words';

/** Where each command or screen that registers is named in the history. */
export const REGISTRATION_SOURCES = {
  listenExpose: 'listen --expose',
  listenRegisterUrl: 'listen --register-url',
  webhookSet: 'webhook set',
  webhookRestore: 'webhook restore',
  appRegister: 'app: Tunnel → Register',
  appExpose: 'app: Tunnel → Public URL',
  appRestore: 'app: Tunnel → Restore previous URL',
  demo: 'demo',
} as const;

type RegistrationState = 'here' | 'stale' | 'elsewhere' | 'unknown';

export interface RegistrationStatus {
  state: RegistrationState;
  /** One sentence, as shown. */
  text: string;
  /** The last registration by this install, or null. */
  last: RegistrationRecord | null;
}

/** The receiver's own hook URLs for the agent now (null: not listening / not exposed). */
export interface ReceiverHooks {
  local: string | null;
  public: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "10:42" on the day of `now`, "2026-11-26 10:42" on another (local time). */
export function when(at: number, now: number): string {
  const d = new Date(at);
  const n = new Date(now);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

const UNKNOWN = 'unknown: the service cannot tell us; another app may be receiving';

/** What is known of where the agent's deliveries go, from the last registration by this install. */
export function describeRegistration(
  last: RegistrationRecord | null,
  hooks: ReceiverHooks,
  now: number,
): RegistrationStatus {
  if (!last) return { state: 'unknown', text: UNKNOWN, last: null };
  const at = when(last.at, now);
  const on = at.includes(' ') ? `on ${at}` : `at ${at}`;
  // The history keeps URLs as shown (redacted): the receiver's are compared as shown too.
  const isLast = (url: string | null) => url !== null && last.url === shownWebhookUrl(url, last.agentId);
  if (isLast(hooks.local)) return { state: 'here', text: `registered here ${on} (this receiver)`, last };
  if (isLast(hooks.public)) return { state: 'here', text: `registered here ${on} (this receiver's public URL)`, last };
  if (last.target === 'receiver') {
    const why = hooks.local === null ? 'the receiver is not listening' : `the receiver now listens at ${hooks.local}`;
    return {
      state: 'stale',
      text: `registered here ${on} to ${last.url}, which no longer reaches this receiver (${why}): register again`,
      last,
    };
  }
  if (last.target === 'exposure') {
    const why = hooks.public === null ? 'the receiver is not exposed now' : `its public URL is now ${hooks.public}`;
    return {
      state: 'stale',
      text: `registered here ${on} to ${last.url}, a public URL of this receiver that no longer reaches it (${why}): register again`,
      last,
    };
  }
  const text =
    last.registeredBy !== undefined
      ? `registered ${registrant(last)} to ${last.url} ${on}`
      : `registered by this install to ${last.url} ${on} (${registrationSourceWords(last)})`;
  return { state: 'elsewhere', text, last };
}

/** Who made a registration: a member through the team hub, or this install. */
function registrant(r: RegistrationRecord): string {
  return r.registeredBy !== undefined ? `by ${r.registeredBy} through the team hub` : 'by this install';
}

/**
 * What is asked before registering `url` for an agent: the URL that stops receiving when this
 * install knows it, and that the service issues a new signing secret.
 */
export function takeoverQuestion(agent: string, url: string, last: RegistrationRecord | null, now: number): string {
  return `Point the webhook of ${agent} at ${shownWebhookUrl(url, agent)}? ${takeoverWarning(last, now, url)}`;
}

/** The question's words after "Point … at <url>?": what stops receiving, and the new signing secret. */
export function takeoverWarning(last: RegistrationRecord | null, now: number, url?: string): string {
  const stops =
    last === null
      ? "Whatever URL it has now stops receiving its deliveries: the service cannot tell us which, and another app (the team's own, say) may be receiving them."
      : url !== undefined && last.url === shownWebhookUrl(url, last.agentId)
        ? `It was last registered ${registrant(last)} to this same URL (${when(last.at, now)}); if another app registered since, that one stops receiving.`
        : last.registeredBy !== undefined
          ? `${last.url} (registered ${registrant(last)}, ${when(last.at, now)}) stops receiving its deliveries, unless another app registered since: then that one does.`
          : `${last.url} (registered by this install, ${when(last.at, now)}, ${registrationSourceWords(last)}) stops receiving its deliveries, unless another app registered since: then that one does.`;
  return `The service keeps one webhook URL per agent. ${stops} The service issues a new signing secret; the previous one stops working.`;
}

/** The registration before the last one with another URL (newest-first entries), or null. */
export function previousRegistration(entries: readonly RegistrationRecord[]): RegistrationRecord | null {
  const last = entries[0];
  if (!last) return null;
  return entries.find((e) => e.url !== last.url) ?? null;
}

/**
 * A URL kept with its credentials redacted (a user and password, query values or a token-like path
 * segment hidden) cannot be registered again as it was.
 */
export function hasRedactedCredentials(url: string): boolean {
  return isRedactedUrl(url);
}

/** Said after a restore: the app behind the URL needs the new secret. */
export function restoredWords(url: string): string {
  return `The webhook points at ${url} again. The service issued a new signing secret: the app behind that URL rejects deliveries until it is given the new secret.`;
}
