import { and, eq } from 'drizzle-orm';
import type { Tx } from './db.js';
import { idempotencyRecords } from './schema.js';

export type IdempotencyRecord = typeof idempotencyRecords.$inferSelect;

/**
 * Claims (keyId, idempotencyKey) for this transaction. A concurrent claim of the same key
 * waits on the primary key until this transaction ends, then sees the finished record.
 * Returns null when claimed now, or the record that already holds the key.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  claim: { keyId: number; idempotencyKey: string; route: string; requestHash: string },
): Promise<IdempotencyRecord | null> {
  const inserted = await tx.insert(idempotencyRecords).values(claim).onConflictDoNothing().returning({ keyId: idempotencyRecords.keyId });
  if (inserted.length > 0) return null;
  const [existing] = await tx
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.keyId, claim.keyId), eq(idempotencyRecords.idempotencyKey, claim.idempotencyKey)));
  return existing!;
}

export async function completeIdempotencyRecord(
  tx: Tx,
  keyId: number,
  idempotencyKey: string,
  result: { statusCode: number; response: unknown },
): Promise<void> {
  await tx
    .update(idempotencyRecords)
    .set({ statusCode: result.statusCode, response: result.response })
    .where(and(eq(idempotencyRecords.keyId, keyId), eq(idempotencyRecords.idempotencyKey, idempotencyKey)));
}
