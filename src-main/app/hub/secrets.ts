// The teams' secrets on a hub (a server has no OS keychain): API keys, webhook signing secrets and the like,
// kept in Postgres encrypted at rest with AES-256-GCM — a random 12-byte IV per write, the account name as
// additional authenticated data (a row copied under another account does not decrypt) — under a 32-byte key
// the hub reads from CHANNEL_HUB_SECRET_KEY or a file (`hub --secret-key-file`: systemd credentials, a
// Kubernetes secret). The database holds no key and no secret in the clear. A row written with another key
// fails its authentication: the store says the key is not the one the secrets were written with, and names
// no secret. No error of this module ever holds a secret or the key.
// Rotation: each row records the id of the key that sealed it (a fingerprint, never the key). The store seals with
// its current key and opens with the key a row names — the current one or a previous one (given with
// CHANNEL_HUB_PREVIOUS_SECRET_KEYS or --previous-secret-key-file) — and `rotateSecretKey` re-seals every row under
// the current key in one transaction. A store that lacks the key some row needs says which (by its id) at its probe.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { CompanionError } from '../../core/errors';
import { KeychainError, type SecretStore } from '../../core/secrets/types';
import type { Handlers } from '../handlers';
import type { HubDatabase } from './database';
import { actingMember } from './acting';
import { audit } from './members';

const SECRET_KEY_ENV = 'CHANNEL_HUB_SECRET_KEY';
const PREVIOUS_KEYS_ENV = 'CHANNEL_HUB_PREVIOUS_SECRET_KEYS';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A row under this account (no real account is empty) holds a known text encrypted with the key the first
 * hub started with: every later start checks its key against it, before anything is written with a wrong one.
 */
const KEY_CHECK_ACCOUNT = '';
const KEY_CHECK_TEXT = 'channel-companion hub secret key check';

const HOW_TO_MAKE =
  `set ${SECRET_KEY_ENV} to 32 random bytes in base64 (make them with: openssl rand -base64 32) ` +
  'or give --secret-key-file PATH (a file holding them: base64, 64 hex digits, or the 32 bytes)';

/** The key is missing or malformed: the message says how to make one, and never holds the key. */
export class HubSecretKeyError extends CompanionError {
  constructor(message: string) {
    super(message);
    this.name = 'HubSecretKeyError';
  }
}

/** The key from its text: base64 (44 characters) or 64 hex digits; a file may also hold the 32 raw bytes. */
function parseKey(raw: Buffer, where: string): Buffer {
  if (raw.length === KEY_BYTES) return Buffer.from(raw);
  const text = raw.toString('utf8').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const key = Buffer.from(text, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new HubSecretKeyError(
    `${where} is not a 32-byte key (base64 or 64 hex digits, ${raw.length} bytes given): ${HOW_TO_MAKE}.`,
  );
}

async function keyFile(file: string, flag: string): Promise<Buffer> {
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new HubSecretKeyError(`${flag} ${file} cannot be read (${why}).`);
  }
  return parseKey(raw, `${flag} ${file}`);
}

/**
 * The key that encrypts the teams' secrets: the file's (when given) or CHANNEL_HUB_SECRET_KEY's. Neither:
 * HubSecretKeyError saying how to make one.
 */
export async function loadSecretKey(
  file: string | undefined,
  env: Record<string, string | undefined>,
): Promise<Buffer> {
  if (file !== undefined) return keyFile(file, '--secret-key-file');
  const value = env[SECRET_KEY_ENV];
  if (value === undefined || value.trim() === '')
    throw new HubSecretKeyError(
      `The hub keeps the teams' API keys and webhook secrets encrypted in its database and needs the key: ${HOW_TO_MAKE}. ` +
        'Keep the key safe and give every replica the same one: without it the stored secrets cannot be read.',
    );
  return parseKey(Buffer.from(value, 'utf8'), SECRET_KEY_ENV);
}

/**
 * The keys a rotation left behind, still needed to read what they sealed until `hub rotate-key` re-seals it: each
 * --previous-secret-key-file's, then CHANNEL_HUB_PREVIOUS_SECRET_KEYS' (a comma list, each as the current key is
 * written). None given: none. A malformed one is refused naming where it came from, never repeating it.
 */
export async function loadPreviousSecretKeys(
  files: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Buffer[]> {
  const keys: Buffer[] = [];
  for (const file of files) keys.push(await keyFile(file, '--previous-secret-key-file'));
  const list = (env[PREVIOUS_KEYS_ENV] ?? '').split(',').map((k) => k.trim());
  list.forEach((text, i) => {
    if (text !== '') keys.push(parseKey(Buffer.from(text, 'utf8'), `${PREVIOUS_KEYS_ENV} (entry ${i + 1})`));
  });
  return keys;
}

/**
 * A key's id: the first 8 bytes of HMAC-SHA-256 under the key of a fixed text, in hex. It tells keys apart (and
 * names the one a row needs) and reveals nothing of the key.
 */
export function secretKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('channel-companion hub secret key id').digest('hex').slice(0, 16);
}

interface Sealed {
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
  /** The id of the key that sealed it; null: sealed before the ids were recorded (any key given may open it). */
  key_id: string | null;
}

const WRONG_KEY =
  "The hub's stored secrets were encrypted with another key: the key given (--secret-key-file or " +
  `${SECRET_KEY_ENV}) is not the one they were written with. Give every replica the key the hub was first started with.`;

/** A row sealed with a key this store was not given: the key's id, never a key. */
function missingKey(keyId: string, mine: readonly string[]): KeychainError {
  return new KeychainError(
    `The hub's stored secrets were encrypted with another key: some need the key whose id is ${keyId}, which this ` +
      `replica was not given (its keys' ids: ${mine.join(', ')}). Give that key as the current one ` +
      `(--secret-key-file or ${SECRET_KEY_ENV}) or as a previous one (--previous-secret-key-file or ` +
      `${PREVIOUS_KEYS_ENV}).`,
  );
}

export class PostgresSecretStore implements SecretStore {
  /** The current key first (it seals), then the previous ones (they only open), by id. */
  private readonly keys: Map<string, Buffer>;
  /** The current key's id: recorded with every row this store seals. */
  readonly keyId: string;

  constructor(
    private readonly db: HubDatabase,
    key: Buffer,
    previous: readonly Buffer[] = [],
  ) {
    if ([key, ...previous].some((k) => k.length !== KEY_BYTES))
      throw new HubSecretKeyError(`the key must be ${KEY_BYTES} bytes`);
    this.keyId = secretKeyId(key);
    this.keys = new Map([key, ...previous].map((k) => [secretKeyId(k), Buffer.from(k)]));
  }

  private seal(account: string, secret: string): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(account, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { iv, ciphertext, tag: cipher.getAuthTag(), key_id: this.keyId };
  }

  /** The row's secret, and the id of the key that opened it. */
  private openWith(account: string, row: Sealed): { secret: string; keyId: string } {
    if (row.key_id !== null && !this.keys.has(row.key_id)) throw missingKey(row.key_id, [...this.keys.keys()]);
    const candidates = row.key_id !== null ? [row.key_id] : [...this.keys.keys()];
    for (const id of candidates) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', this.keys.get(id)!, row.iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(account, 'utf8'));
        decipher.setAuthTag(row.tag);
        return {
          secret: Buffer.concat([decipher.update(row.ciphertext), decipher.final()]).toString('utf8'),
          keyId: id,
        };
      } catch {
        // Not this key (or the row was tampered with / moved): the next, then the store's words.
      }
    }
    // The message names neither the account's secret nor anything decrypted.
    throw new KeychainError(WRONG_KEY);
  }

  private open(account: string, row: Sealed): string {
    return this.openWith(account, row).secret;
  }

  /** The database's failures as the store's, in plain words (a driver message never holds a secret here). */
  private async answer<T>(what: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      if (e instanceof KeychainError) throw e;
      const why = e instanceof Error ? e.message : String(e);
      throw new KeychainError(`The hub's database could not ${what} (${why}).`, { cause: e });
    }
  }

  private async row(account: string): Promise<Sealed | undefined> {
    return this.db
      .selectFrom('hub_secrets')
      .select(['iv', 'ciphertext', 'tag', 'key_id'])
      .where('account', '=', account)
      .executeTakeFirst();
  }

  private async put(account: string, secret: string): Promise<void> {
    const sealed = this.seal(account, secret);
    await this.db
      .insertInto('hub_secrets')
      .values({ account, ...sealed })
      .onConflict((oc) => oc.column('account').doUpdateSet({ ...sealed, updated_at: sql`now()` }))
      .execute();
  }

  get(account: string): Promise<string | null> {
    this.checkAccount(account);
    return this.answer('read a secret', async () => {
      const row = await this.row(account);
      return row ? this.open(account, row) : null;
    });
  }

  set(account: string, secret: string): Promise<void> {
    this.checkAccount(account);
    return this.answer('store a secret', () => this.put(account, secret));
  }

  delete(account: string): Promise<boolean> {
    this.checkAccount(account);
    return this.answer('delete a secret', async () => {
      const r = await this.db.deleteFrom('hub_secrets').where('account', '=', account).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  /**
   * The database answers and this store holds every key the stored secrets need: the check value (written by
   * the first start on a database) opens, and no row names a key this store lacks — else a KeychainError that
   * names the missing key's id. Rows sealed before key ids were recorded get the id of the key that opens them.
   */
  probe(): Promise<void> {
    return this.answer('check the secret key', async () => {
      let row = await this.row(KEY_CHECK_ACCOUNT);
      if (!row) {
        const sealed = this.seal(KEY_CHECK_ACCOUNT, KEY_CHECK_TEXT);
        await this.db
          .insertInto('hub_secrets')
          .values({ account: KEY_CHECK_ACCOUNT, ...sealed })
          .onConflict((oc) => oc.column('account').doNothing())
          .execute();
        row = await this.row(KEY_CHECK_ACCOUNT);
      }
      const needed = await this.db
        .selectFrom('hub_secrets')
        .select('key_id')
        .distinct()
        .where('key_id', 'is not', null)
        .execute();
      const missing = needed.map((r) => r.key_id!).find((id) => !this.keys.has(id));
      if (missing !== undefined) throw missingKey(missing, [...this.keys.keys()]);
      if (!row || this.open(KEY_CHECK_ACCOUNT, row) !== KEY_CHECK_TEXT) throw new KeychainError(WRONG_KEY);
      // Rows from before the ids: each gets the id of the key that opens it (one no key opens is refused).
      const unnamed = await this.db
        .selectFrom('hub_secrets')
        .select(['account', 'iv', 'ciphertext', 'tag', 'key_id'])
        .where('key_id', 'is', null)
        .execute();
      for (const r of unnamed) {
        const { keyId } = this.openWith(r.account, r);
        await this.db
          .updateTable('hub_secrets')
          .set({ key_id: keyId })
          .where('account', '=', r.account)
          .where('key_id', 'is', null)
          .execute();
      }
    });
  }

  /**
   * Re-seals every stored secret and the check value under the current key, in one transaction that keeps every
   * other writer out until it commits; the number of secrets re-sealed (the check value not counted). A row no
   * key of this store opens fails it all, naming the key it needs: nothing is changed.
   */
  rotate(): Promise<{ resealed: number; keyId: string }> {
    return this.answer('re-seal the secrets', () =>
      this.db.transaction().execute(async (trx) => {
        await sql`lock table hub_secrets in exclusive mode`.execute(trx);
        const rows = await trx
          .selectFrom('hub_secrets')
          .select(['account', 'iv', 'ciphertext', 'tag', 'key_id'])
          .execute();
        let resealed = 0;
        for (const r of rows) {
          const sealed = this.seal(r.account, this.open(r.account, r));
          await trx
            .updateTable('hub_secrets')
            .set({ ...sealed, updated_at: sql`now()` })
            .where('account', '=', r.account)
            .execute();
          if (r.account !== KEY_CHECK_ACCOUNT) resealed++;
        }
        if (!rows.some((r) => r.account === KEY_CHECK_ACCOUNT))
          await trx
            .insertInto('hub_secrets')
            .values({ account: KEY_CHECK_ACCOUNT, ...this.seal(KEY_CHECK_ACCOUNT, KEY_CHECK_TEXT) })
            .execute();
        return { resealed, keyId: this.keyId };
      }),
    );
  }

  private checkAccount(account: string): void {
    if (account === KEY_CHECK_ACCOUNT) throw new KeychainError('A secret needs an account name.');
  }
}

/**
 * webhook.revealSecret on a hub (admin only, roles.ts): answered as the companion answers it, and each reveal
 * recorded in hub_audit with the member and the agent (never the secret). A reveal that cannot be recorded
 * is refused: the secret is not handed out unrecorded.
 */
export function revealRecorded(
  reveal: Handlers['webhook.revealSecret'],
  db: HubDatabase,
): Handlers['webhook.revealSecret'] {
  return async (raw) => {
    const r = await reveal(raw);
    if (!r.ok) return r;
    const { teamId, agentId } = raw as { teamId: string; agentId: string };
    try {
      await audit(db, {
        member: actingMember()?.name ?? null,
        action: 'webhook.secretRevealed',
        subject: `${teamId} ${agentId}`,
      });
    } catch {
      return {
        ok: false,
        error: {
          kind: 'internal',
          code: 'DATABASE_UNAVAILABLE',
          message: "The reveal could not be recorded in the hub's database, so the secret was not shown; try again.",
        },
      };
    }
    return r;
  };
}
