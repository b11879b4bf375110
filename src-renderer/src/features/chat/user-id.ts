// The default chat user id: stable per install of this window (kept in localStorage), so the same
// person keeps one conversation. The contract has no install id to read yet (see the lead's report).
const KEY = 'cc.chat.userId';

function randomPart(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID().slice(0, 8);
  return Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, '0');
}

export function defaultUserId(storage: Pick<Storage, 'getItem' | 'setItem'> | null = safeStorage()): string {
  const known = storage?.getItem(KEY);
  if (known) return known;
  const id = `me-${randomPart()}`;
  storage?.setItem(KEY, id);
  return id;
}

function safeStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
