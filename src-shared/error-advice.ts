// Errors in people's words, by kind (never by parsing messages): what happened and what to do, for
// the app's screens (describeError) and for the command line (cliHint). One table each, side by
// side, so a new kind is worded for both. The words name the thing (the messages say which agent,
// team or field) and never end in an internal code: the code stays on the error for diagnostics.

/** What the advice reads of an error (the contract's ErrorDTO, or the CLI's service error). */
export interface ErrorFacts {
  kind: string;
  code: string;
  message: string;
  status?: number;
  retryAfterSec?: number;
  /** X-RateLimit-Limit: the ceiling a rate-limited request ran into (sends: per minute). */
  limit?: number;
}

export interface ErrorText {
  what: string;
  todo: string;
}

/** The message as a sentence: trimmed, with a full stop when it has no end mark. */
function sentence(message: string, fallback: string): string {
  const m = message.trim() || fallback;
  return /[.!?…]$/.test(m) ? m : `${m}.`;
}

/** The text with its first letter in capitals, to start a sentence with words made for mid-sentence. */
export function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "rate limit (60 per minute)", or "rate limit" when the ceiling is not known. */
export function rateLimitWords(e: Pick<ErrorFacts, 'limit'>): string {
  return e.limit !== undefined ? `rate limit (${e.limit} per minute)` : 'rate limit';
}

/**
 * Where the error came from: 'adding' a team or an agent (nothing is saved yet), or 'using' what is
 * saved (the default). The advice for an unknown agent differs: one being added is only checked.
 */
export type ErrorContext = 'adding' | 'using';

function notFoundTodo(code: string, context: ErrorContext): string {
  if (code === 'AGENT_NOT_FOUND' || code === 'NO_AGENT') {
    return context === 'adding'
      ? "Check the agent ID in the dashboard (it must belong to this team's key) and try again."
      : 'Check the agent ID in the dashboard, or remove the agent from the team in Settings.';
  }
  if (code === 'NO_TEAM') return 'The team may have been removed; add it again in Settings.';
  return 'It may have been removed meanwhile; reload the list and try again.';
}

/** What happened and what to do, in the app's words (its screens and actions). */
export function describeError(e: ErrorFacts, context: ErrorContext = 'using'): ErrorText {
  switch (e.kind) {
    case 'keychain':
      return {
        what: 'No OS keychain is reachable, so the API key cannot be stored safely.',
        todo: 'Unlock or start your system keychain (Keychain on macOS, Credential Manager on Windows, GNOME Keyring or KWallet on Linux) and try again. Nothing you typed was lost.',
      };
    case 'key-rejected':
      return {
        what: 'The service rejected the team API key (key rejected).',
        todo: 'Copy a current key from the dashboard and add the team again.',
      };
    case 'reconnecting':
      return {
        what: "The agent's number is reconnecting.",
        todo: 'Nothing to do: it recovers on its own. Try again in a moment.',
      };
    case 'needs-scan':
      return { what: "The agent's number is not linked.", todo: 'Open Pairing and scan the QR code with the phone.' };
    case 'rate-limited': {
      const words = rateLimitWords(e);
      return {
        what: `${capitalized(words)} reached.`,
        todo: e.retryAfterSec ? `Wait ${e.retryAfterSec} s and try again.` : 'Wait a little and try again.',
      };
    }
    case 'quota-exceeded':
      return {
        what: "The team's message quota is used up.",
        todo: 'Wait for the quota to reset, or raise it in the dashboard.',
      };
    case 'not-found':
      return { what: sentence(e.message, 'It is no longer there'), todo: notFoundTodo(e.code, context) };
    case 'invalid-request':
      return {
        what: `The service refused the request: ${sentence(e.message, 'no reason given')}`,
        todo: 'Check the values and try again.',
      };
    case 'server-error':
      // Without a status it came inside an answer (a stream's error event): the service's own words say what.
      if (!e.status && e.message.trim() !== '')
        return { what: `The service reported a problem: ${sentence(e.message, '')}`, todo: 'Try again in a minute.' };
      return {
        what: `The service had a problem${e.status ? ` (HTTP ${e.status})` : ''}.`,
        todo: 'Try again in a minute.',
      };
    case 'network-error':
      if (e.code === 'HUB_UNREACHABLE')
        return {
          what: sentence(e.message, "The team's hub could not be reached"),
          todo: 'Check your connection and try again, or disconnect from the hub in Settings.',
        };
      return {
        what: 'The service could not be reached.',
        todo: 'Check your connection and the service address, then try again.',
      };
    case 'timeout':
      return { what: 'The service took too long to answer.', todo: 'Try again.' };
    case 'aborted':
      return { what: 'Stopped before it finished.', todo: 'Start it again when you are ready.' };
    case 'validation':
      return {
        what: sentence(e.message, 'A value is not valid'),
        todo: 'Correct the highlighted field and try again.',
      };
    case 'forbidden':
      // A team's hub refused: the member's token, or the member's role.
      if (e.code === 'HUB_BAD_TOKEN')
        return { what: sentence(e.message, 'The hub refused the token'), todo: 'Ask a hub admin for a new token.' };
      // Said by the windows' hub connection in the member's words (roleRefusal), which already say whom to ask.
      if (e.code === 'ROLE_FORBIDDEN' && e.message.startsWith('Your role ('))
        return { what: sentence(e.message, ''), todo: 'The screens now show what your role allows.' };
      if (e.code === 'ROLE_FORBIDDEN')
        return {
          what: `The hub does not allow this: ${sentence(e.message, 'your role does not allow it')}`,
          todo: 'Ask a hub admin for a role that allows it.',
        };
      return {
        what: sentence(e.message, 'Not allowed'),
        todo: 'Open the full link printed by `channel-companion serve`.',
      };
    case 'internal':
    default:
      return {
        what: `Something went wrong inside the app: ${sentence(e.message, 'no details')}`,
        todo: 'Try again; if it keeps happening, export diagnostics from Settings.',
      };
  }
}

/** What happened and what to do, as one text (a chat row, an announcement). */
export function errorText(e: ErrorFacts, context?: ErrorContext): string {
  const { what, todo } = describeError(e, context);
  return `${what} ${todo}`;
}

/** One line for tight places (a table cell, a status line): what happened, without the advice. */
export function errorLine(e: ErrorFacts): string {
  return describeError(e).what;
}

/** The command line's hint after the service's own message, in the words a person acts on; null when none helps. */
export function cliHint(e: ErrorFacts): string | null {
  switch (e.kind) {
    case 'needs-scan':
      return 'the number needs a QR scan: run `channel-companion pair`';
    case 'reconnecting':
      return 'the number is reconnecting; it recovers on its own, try again shortly';
    case 'rate-limited': {
      const ceiling =
        e.limit !== undefined
          ? `the service allows ${e.limit} per minute (X-RateLimit-Limit)`
          : 'the service did not say its ceiling (no X-RateLimit-Limit)';
      return `rate limit reached: ${ceiling}; ${e.retryAfterSec !== undefined ? `wait ${e.retryAfterSec} s` : 'slow down'}`;
    }
    case 'quota-exceeded':
      return 'the monthly quota is exhausted';
    // The message before it already says the key was rejected: only what to do.
    case 'key-rejected':
      return 'check the key: the dashboard has a current one; a saved team takes it with `team edit --key-from-env`';
    case 'not-found':
      return 'unknown agent (or resource); check --agent';
    default:
      return null;
  }
}
