// Turns a raw @napi-rs/keyring error into KeychainUnavailable / KeychainLocked / KeychainError with
// a plain message. Observed texts (Linux, Secret Service via gnome-keyring 42, keyring 2.1):
//   no bus:          "Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled …"
//   bad bus address: "Platform failure: DBus error: Failed to connect to socket …"
//   no daemon:       "Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files"
//   no collection:   "Couldn't access platform storage: Secret Service: no result found"   (on set)
//   locked:          "Couldn't access platform storage: Secret Service: unlock prompt was dismissed"
import { KeychainError, KeychainLocked, KeychainUnavailable } from './types';

const LOCKED = /unlock prompt|prompt was dismissed|is locked|\blocked\b|IsLocked/i;
const NO_COLLECTION = /no result found|NoSuchObject|no such (collection|object)/i;
const UNREACHABLE =
  /not provided by any \.service files|ServiceUnknown|Failed to connect|autolaunch|DBUS_SESSION_BUS_ADDRESS|DBus error|NoReply|Connection refused|Platform failure|NoStorageAccess|No such file or directory/i;

/** All messages in the error and its cause chain, joined. */
function describe(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 6; depth++) {
    if (cur instanceof Error) {
      const msg = cur.message;
      if (msg && !parts.some((p) => p.includes(msg))) parts.push(msg);
      cur = (cur as { cause?: unknown }).cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(' / ');
}

/** Removes the secret from a text, should a library ever echo it; caps the length. */
function redact(text: string, secret?: string): string {
  let out = text;
  if (secret && secret.length >= 1) out = out.split(secret).join('[redacted]');
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

export interface ClassifyContext {
  /** What failed, in the user's words: "the key was not stored". */
  action: string;
  /** "Secret Service", "macOS Keychain", "Windows Credential Manager". */
  backend: string;
  /** The secret involved, when known, so it can be redacted from the library's text. */
  secret?: string;
}

export function classifyKeyringError(err: unknown, ctx: ClassifyContext): KeychainError {
  if (err instanceof KeychainError) return err;
  const detail = redact(describe(err), ctx.secret);
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new KeychainError(`The OS keychain (${ctx.backend}) did not answer in time: ${ctx.action}.`, { cause: err });
  }
  if (LOCKED.test(detail)) {
    return new KeychainLocked(
      `The OS keychain (${ctx.backend}) is locked and was not unlocked: ${ctx.action}. ` +
        'Unlock your keyring (log in to the desktop session or use your keyring manager) and try again.',
      { cause: err },
    );
  }
  if (NO_COLLECTION.test(detail)) {
    return new KeychainUnavailable(
      `No OS keychain is reachable (${ctx.backend} has no default keyring to use: ${detail}): ${ctx.action}. ` +
        'Create or unlock a default keyring and try again.',
      { cause: err },
    );
  }
  if (UNREACHABLE.test(detail)) {
    return new KeychainUnavailable(
      `No OS keychain is reachable (${ctx.backend}: ${detail}): ${ctx.action}. ` +
        'Start a keyring service (e.g. gnome-keyring or KeePassXC with Secret Service enabled) in this session and try again.',
      { cause: err },
    );
  }
  return new KeychainError(`The OS keychain (${ctx.backend}) failed: ${detail}: ${ctx.action}.`, { cause: err });
}
