// Names the person gives conversations: this window's own (localStorage), never sent anywhere.
// Other windows of the same browser see a rename at once (the storage event).
import { useSyncExternalStore } from 'react';
import { safeStorage } from './user-id';

const KEY = 'cc.chat.names';
export const MAX_NAME = 80;

/** Conversation key (convKey: team/agent/user) → name. */
export type ConversationNames = Readonly<Record<string, string>>;

const NONE: ConversationNames = {};
const listeners = new Set<() => void>();
let last: { raw: string | null; names: ConversationNames } = { raw: null, names: NONE };

function parse(raw: string | null): ConversationNames {
  if (!raw) return NONE;
  try {
    const v: unknown = JSON.parse(raw);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return NONE;
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return NONE;
  }
}

/** The names as stored now; the same object while the stored text is unchanged. */
function readNames(): ConversationNames {
  const raw = safeStorage()?.getItem(KEY) ?? null;
  if (raw !== last.raw) last = { raw, names: parse(raw) };
  return last.names;
}

/** Names a conversation; an empty name (or null) goes back to the default title. */
export function setConversationName(key: string, name: string | null): void {
  const next = { ...readNames() };
  const clean = name?.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME) ?? '';
  if (clean) next[key] = clean;
  else delete next[key];
  try {
    safeStorage()?.setItem(KEY, JSON.stringify(next));
  } catch {
    // Storage full or refused: the name is not kept.
  }
  for (const l of listeners) l();
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  const onStorage = (e: StorageEvent) => e.key === KEY && onChange();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener('storage', onStorage);
  };
}

export function useConversationNames(): ConversationNames {
  return useSyncExternalStore(subscribe, readNames);
}
