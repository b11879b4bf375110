// How an agent's signing secrets sit in one keychain entry: {"v":1,"secrets":[current, previous?]}.
// One entry keeps a rotation atomic. A bare string (set by hand) is read as the current secret.
import { z } from 'zod';

const stored = z.object({ v: z.literal(1), secrets: z.array(z.string().min(1)).min(1).max(2) });

export function encodeSigningSecrets(secrets: string[]): string {
  return JSON.stringify({ v: 1, secrets });
}

export function decodeSigningSecrets(value: string | null): string[] {
  if (value === null || value === '') return [];
  try {
    const parsed = stored.safeParse(JSON.parse(value));
    if (parsed.success) return parsed.data.secrets;
  } catch {
    // not JSON: a bare secret
  }
  return [value];
}

/** The new secret first, the previous current one kept for rotation; setting the current one again changes nothing. */
export function rotate(existing: string[], next: string): string[] {
  const current = existing[0];
  if (current === undefined) return [next];
  if (current === next) return existing;
  return [next, current];
}
