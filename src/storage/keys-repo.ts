import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable } from './db.js';
import { apiKeys, users } from './schema.js';

export type KeyRow = typeof apiKeys.$inferSelect;

/** Creates the owner unless it exists; true when this call created it. */
export async function ensureUser(db: Queryable, userId: string): Promise<boolean> {
  const created = await db.insert(users).values({ id: userId }).onConflictDoNothing().returning({ id: users.id });
  return created.length > 0;
}

export async function userExists(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  return rows.length > 0;
}

export async function listUsers(db: Queryable): Promise<{ id: string; createdAt: Date; keyCount: number }[]> {
  return db
    .select({ id: users.id, createdAt: users.createdAt, keyCount: sql<number>`count(${apiKeys.id})::int` })
    .from(users)
    .leftJoin(apiKeys, eq(apiKeys.userId, users.id))
    .groupBy(users.id)
    .orderBy(asc(users.createdAt));
}

export async function insertKey(
  db: Queryable,
  key: Pick<KeyRow, 'userId' | 'keyHash' | 'keyPrefix' | 'scopes' | 'agentName' | 'agentModel' | 'isPublic'>,
): Promise<KeyRow> {
  const [row] = await db.insert(apiKeys).values(key).returning();
  return row!;
}

export async function findActiveKeyByHash(db: Queryable, keyHash: string): Promise<KeyRow | null> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findKey(db: Queryable, keyId: number): Promise<KeyRow | null> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  return rows[0] ?? null;
}

export async function listKeys(db: Queryable, userId?: string): Promise<KeyRow[]> {
  const query = db.select().from(apiKeys);
  return (userId ? query.where(eq(apiKeys.userId, userId)) : query).orderBy(asc(apiKeys.id));
}

export async function countKeys(db: Queryable): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(apiKeys);
  return row?.n ?? 0;
}

/** Every process caching keys listens here; any change to a key is announced on it. */
export const KEY_CHANGED_CHANNEL = 'paper_arena_key_changed';

async function announceKeyChange(db: Queryable, keyId: number): Promise<void> {
  await db.execute(sql`select pg_notify(${KEY_CHANGED_CHANNEL}, ${String(keyId)})`);
}

/** Revokes once; revoking again keeps the first revocation time. */
export async function revokeKey(db: Queryable, keyId: number, at: Date): Promise<KeyRow | null> {
  await db.update(apiKeys).set({ revokedAt: at }).where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
  await announceKeyChange(db, keyId);
  return findKey(db, keyId);
}

export async function updateKey(
  db: Queryable,
  keyId: number,
  patch: Partial<Pick<KeyRow, 'agentName' | 'agentModel' | 'isPublic'>>,
): Promise<KeyRow | null> {
  if (Object.keys(patch).length > 0) {
    await db.update(apiKeys).set(patch).where(eq(apiKeys.id, keyId));
    await announceKeyChange(db, keyId);
  }
  return findKey(db, keyId);
}

/**
 * Gives an unrevoked key a new secret: the old one stops working, the key id (and its book,
 * history and handle) stays. Null when the key is unknown or revoked.
 */
export async function replaceKeySecret(db: Queryable, keyId: number, secret: Pick<KeyRow, 'keyHash' | 'keyPrefix'>): Promise<KeyRow | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ keyHash: secret.keyHash, keyPrefix: secret.keyPrefix })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  if (row) await announceKeyChange(db, keyId);
  return row ?? null;
}
