// The ngrok authtoken: kept in the OS keychain like every secret (never in a flag, a config file or
// a log), read when an ngrok exposure starts. Only a hint of it is ever shown.
import { z } from 'zod';
import { keyHint } from '../teams/refs';
import type { SecretStore } from '../secrets';
import { ExposeError, LOCAL_KEEPS_WORKING } from './errors';
import { SET_AUTHTOKEN_HINT } from './ngrok';

/** Its keychain account. */
const NGROK_AUTHTOKEN_ACCOUNT = 'ngrok:authtoken';

export const ngrokAuthtokenSchema = z
  .string()
  .trim()
  .min(20, 'an ngrok authtoken is longer than that (copy it whole from the ngrok dashboard)')
  .max(512, 'that is too long for an ngrok authtoken')
  .regex(/^[A-Za-z0-9_\-.]+$/, 'an ngrok authtoken has only letters, digits, "_", "-" and "."');

export async function saveNgrokAuthtoken(store: SecretStore, token: string): Promise<{ hint: string }> {
  const t = ngrokAuthtokenSchema.parse(token);
  await store.set(NGROK_AUTHTOKEN_ACCOUNT, t);
  return { hint: keyHint(t) };
}

/** The hint of the stored authtoken, or null when none is stored (throws KeychainError when it cannot tell). */
export async function ngrokAuthtokenHint(store: SecretStore): Promise<string | null> {
  const t = await store.get(NGROK_AUTHTOKEN_ACCOUNT);
  return t ? keyHint(t) : null;
}

export function deleteNgrokAuthtoken(store: SecretStore): Promise<boolean> {
  return store.delete(NGROK_AUTHTOKEN_ACCOUNT);
}

/** The stored authtoken, or an ExposeError that says how to store one (or why the keychain did not answer). */
export async function readNgrokAuthtoken(store: SecretStore): Promise<string> {
  let t: string | null;
  try {
    t = await store.get(NGROK_AUTHTOKEN_ACCOUNT);
  } catch (e) {
    throw new ExposeError(
      'keychain',
      `the ngrok authtoken could not be read from the keychain: ${e instanceof Error ? e.message : String(e)}`,
      `Unlock the keychain and start the exposure again. ${LOCAL_KEEPS_WORKING}`,
    );
  }
  if (!t)
    throw new ExposeError(
      'no-authtoken',
      'no ngrok authtoken is stored',
      `${SET_AUTHTOKEN_HINT} ${LOCAL_KEEPS_WORKING}`,
    );
  return t;
}
