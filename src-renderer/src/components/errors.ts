// Turns an ErrorDTO into what happened and what to do, by its kind (never by parsing messages).
import type { ErrorDTO } from '../../../src-shared/contract';

export interface ErrorText {
  what: string;
  todo: string;
}

export function describeError(e: ErrorDTO): ErrorText {
  switch (e.kind) {
    case 'keychain':
      return {
        what: 'No OS keychain is reachable, so the API key cannot be stored safely.',
        todo: 'Unlock or start your system keychain (Keychain on macOS, Credential Manager on Windows, GNOME Keyring or KWallet on Linux) and try again. Nothing you typed was lost.',
      };
    case 'unauthorized':
      return { what: 'The service rejected the team API key (key rejected).', todo: 'Copy a current key from the dashboard and add the team again.' };
    case 'reconnecting':
      return { what: "The agent's number is reconnecting.", todo: 'Nothing to do: it recovers on its own. Try again in a moment.' };
    case 'not-configured':
      return { what: "The agent's number is not linked.", todo: 'Open Pairing and scan the QR code with the phone.' };
    case 'rate-limited':
      return {
        what: 'Too many requests right now.',
        todo: e.retryAfterSec ? `Wait ${e.retryAfterSec} s and try again.` : 'Wait a little and try again.',
      };
    case 'quota-exceeded':
      return { what: "The team's message quota is used up.", todo: 'Wait for the quota to reset, or raise it in the dashboard.' };
    case 'not-found':
      return { what: 'The service does not know this item.', todo: 'Check the agent ID in the dashboard.' };
    case 'invalid-request':
      return { what: `The service refused the request: ${e.message}`, todo: 'Check the values and try again.' };
    case 'server-error':
      return { what: `The service had a problem${e.status ? ` (HTTP ${e.status})` : ''}.`, todo: 'Try again in a minute.' };
    case 'network-error':
      return { what: 'The service could not be reached.', todo: 'Check your connection and the service address, then try again.' };
    case 'timeout':
      return { what: 'The service took too long to answer.', todo: 'Try again.' };
    case 'aborted':
      return { what: 'Stopped before it finished.', todo: 'Start it again when you are ready.' };
    case 'validation':
      return { what: e.message, todo: 'Correct the highlighted field and try again.' };
    case 'forbidden':
      return { what: e.message, todo: 'Open the full link printed by `channel-companion serve`.' };
    case 'internal':
    default:
      return { what: `Something went wrong inside the app: ${e.message}`, todo: 'Try again; if it keeps happening, export diagnostics from Settings.' };
  }
}
