// The default chat user id is the install id from the app settings (settings.get → installId): the
// same id the core's chat uses by default, so this window, other windows and the CLI share one
// conversation. Only when the settings cannot be read at all does it fall back to an id kept in
// localStorage, so chatting still works. A new conversation is a new user id (the service keeps one
// conversation per user_id): the person's id with a suffix.
const KEY = 'cc.chat.userId';

function randomPart(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID().slice(0, 8);
  return Math.floor(Math.random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
}

/** An id kept in localStorage: only the fallback when the settings cannot be read. */
function localFallbackUserId(storage: Pick<Storage, 'getItem' | 'setItem'> | null = safeStorage()): string {
  const known = storage?.getItem(KEY);
  if (known) return known;
  const id = `me-${randomPart()}`;
  storage?.setItem(KEY, id);
  return id;
}

/**
 * The person's own user id: the install id once the settings are loaded; null while they load;
 * the localStorage fallback when loading them failed.
 */
export function ownUserId(
  installId: string | null | undefined,
  settingsFailed: boolean,
  storage: Pick<Storage, 'getItem' | 'setItem'> | null = safeStorage(),
): string | null {
  if (installId) return installId;
  return settingsFailed ? localFallbackUserId(storage) : null;
}

/** A fresh user id for a new conversation of the person's own: their id and a time-based suffix. */
export function newConversationId(own: string, now: number = Date.now()): string {
  return `${own}-${now.toString(36)}${randomPart().slice(0, 3)}`;
}

export function safeStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
