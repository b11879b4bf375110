// A hub's members: a name, a role and a token. The token is shown once, when the member is added; the
// database keeps only its SHA-256, so a copy of the database lets no one in. A removed member's token is
// refused from the next request on (every request looks the member up; nothing is cached). A role changed or a
// member removed is published as a `hub.role` event in the same transaction: every replica tells that member's
// open streams (their windows read the role again) and ends a removed member's streams at once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import { CompanionError } from '../../core/errors';
import type { HubDatabase } from './database';
import { publishHubEvents } from './events';
import { isRole, type Role } from '../../../src-shared/roles';

export interface Member {
  name: string;
  role: Role;
  /** ms epoch. */
  createdAt: number;
}

/** A member just added, with the token shown this once. */
interface NewMember extends Member {
  token: string;
}

export class MemberError extends CompanionError {
  constructor(
    message: string,
    readonly code: 'MEMBER_EXISTS' | 'NO_SUCH_MEMBER' | 'BAD_MEMBER_NAME',
  ) {
    super(message);
    this.name = 'MemberError';
  }
}

const TOKEN_PREFIX = 'cch_';
const memberName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'a member name is 1 to 64 letters, digits, ., _, @ or -');

function checkName(name: string): string {
  const r = memberName.safeParse(name);
  if (!r.success) throw new MemberError(r.error.issues[0]?.message ?? 'bad member name', 'BAD_MEMBER_NAME');
  return r.data;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function toMember(row: { name: string; role: string; created_at: Date }): Member {
  return { name: row.name, role: isRole(row.role) ? row.role : 'viewer', createdAt: row.created_at.getTime() };
}

/** Records what was done on the hub and by whom (null: the hub's operator). Never arguments or secrets. */
export async function audit(
  db: HubDatabase,
  entry: { member: string | null; action: string; subject?: string | null },
): Promise<void> {
  await db
    .insertInto('hub_audit')
    .values({ member: entry.member, action: entry.action, subject: entry.subject ?? null })
    .execute();
}

export async function addMember(db: HubDatabase, name: string, role: Role): Promise<NewMember> {
  checkName(name);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  try {
    const row = await db
      .insertInto('hub_members')
      .values({ name, role, token_hash: hashToken(token).toString('hex') })
      .returning(['name', 'role', 'created_at'])
      .executeTakeFirstOrThrow();
    await audit(db, { member: null, action: 'member.add', subject: `${name} (${role})` });
    return { ...toMember(row), token };
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      throw new MemberError(
        `a member named ${name} already exists (remove it first to give a new token)`,
        'MEMBER_EXISTS',
      );
    throw e;
  }
}

/** The present members, oldest first. */
export async function listMembers(db: HubDatabase): Promise<Member[]> {
  const rows = await db
    .selectFrom('hub_members')
    .select(['name', 'role', 'created_at'])
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toMember);
}

/** Removes a member: its token is refused from the next request on, and its open streams end at once. */
export async function removeMember(db: HubDatabase, name: string): Promise<void> {
  checkName(name);
  await db.transaction().execute(async (trx) => {
    const removed = await trx
      .updateTable('hub_members')
      .set({ removed_at: sql<Date>`now()` })
      .where('name', '=', name)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    if (Number(removed.numUpdatedRows) === 0) throw new MemberError(`no member is named ${name}`, 'NO_SUCH_MEMBER');
    await audit(trx, { member: null, action: 'member.remove', subject: name });
    await publishHubEvents(trx, [{ name: 'hub.role', payload: { member: name, role: null } }]);
  });
}

/**
 * Gives a present member another role, keeping their token: their next request is judged by it, and their open
 * windows are told at once (the `hub.role` event). The role the member held before is returned.
 */
export async function setMemberRole(db: HubDatabase, name: string, role: Role): Promise<Member & { previous: Role }> {
  checkName(name);
  return db.transaction().execute(async (trx) => {
    // The row locked while it changes: two changes at once are applied one after the other.
    const before = await trx
      .selectFrom('hub_members')
      .select('role')
      .where('name', '=', name)
      .where('removed_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw new MemberError(`no member is named ${name}`, 'NO_SUCH_MEMBER');
    const row = await trx
      .updateTable('hub_members')
      .set({ role })
      .where('name', '=', name)
      .where('removed_at', 'is', null)
      .returning(['name', 'role', 'created_at'])
      .executeTakeFirstOrThrow();
    await audit(trx, { member: null, action: 'member.role', subject: `${name} (${before.role} → ${role})` });
    await publishHubEvents(trx, [{ name: 'hub.role', payload: { member: name, role } }]);
    return { ...toMember(row), previous: isRole(before.role) ? before.role : 'viewer' };
  });
}

/** The present member whose token this is, or null. */
export async function memberOfToken(db: HubDatabase, token: string): Promise<Member | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) return null;
  const hash = hashToken(token);
  const row = await db
    .selectFrom('hub_members')
    .select(['name', 'role', 'created_at', 'token_hash'])
    .where('token_hash', '=', hash.toString('hex'))
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const stored = Buffer.from(row.token_hash, 'hex');
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return null;
  return toMember(row);
}
