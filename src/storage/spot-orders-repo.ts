import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Queryable } from './db.js';
import { deltaWindow } from './delta-window.js';
import { spotOrders } from './schema.js';

export type SpotOrderRow = typeof spotOrders.$inferSelect;
export type OrderStatus = SpotOrderRow['status'];
export const RESTING: OrderStatus[] = ['open', 'triggered'];

/** A stop hit: stamped `atMs`; the market was examined up to `checkedUntilMs` (the pass's observation, not the stamp). */
export async function markTriggered(db: Queryable, orderId: number, atMs: number, checkedUntilMs: number): Promise<void> {
  const at = new Date(atMs);
  await db
    .update(spotOrders)
    .set({ status: 'triggered', triggeredAt: at, checkedUntil: new Date(checkedUntilMs), updatedAt: at })
    .where(and(eq(spotOrders.id, orderId), eq(spotOrders.status, 'open')));
}

/** Records that the matcher examined the market up to `atMs` for these still-resting orders. */
export async function advanceCheckedUntil(db: Queryable, orderIds: number[], atMs: number): Promise<void> {
  if (orderIds.length === 0) return;
  await db
    .update(spotOrders)
    .set({ checkedUntil: new Date(atMs) })
    .where(and(inArray(spotOrders.id, orderIds), inArray(spotOrders.status, RESTING)));
}

/** Resting orders of every key, oldest first, for the matching job. */
export async function listRestingOrders(db: Queryable, limit: number, afterId = 0): Promise<SpotOrderRow[]> {
  return db
    .select()
    .from(spotOrders)
    .where(and(inArray(spotOrders.status, RESTING), sql`${spotOrders.id} > ${afterId}`))
    .orderBy(spotOrders.id)
    .limit(limit);
}

export interface OpenOrderQuery {
  coinId?: string;
  limit: number;
  /** Delta polling: rows changed at or after this instant, closed ones included. */
  updatedSince?: Date;
}

/**
 * The key's resting orders, newest change first, up to `limit`; with `updatedSince` (delta
 * polling), the `limit` oldest changes at or after it, closed orders included
 * (src/domain/delta-polling.ts), newest change first.
 */
export async function listKeyOrders(db: Queryable, keyId: number, q: OpenOrderQuery): Promise<SpotOrderRow[]> {
  const coin = q.coinId !== undefined ? sql`and coin_id = ${q.coinId}` : sql``;
  const query = db
    .select()
    .from(spotOrders)
    .where(
      and(
        eq(spotOrders.keyId, keyId),
        q.coinId !== undefined ? eq(spotOrders.coinId, q.coinId) : undefined,
        q.updatedSince !== undefined
          ? deltaWindow(sql`${spotOrders.updatedAt}`, q.updatedSince, q.limit, sql`select updated_at as at, id from spot_orders where key_id = ${keyId} ${coin}`)
          : inArray(spotOrders.status, RESTING),
      ),
    )
    .orderBy(desc(spotOrders.updatedAt), desc(spotOrders.id))
    .$dynamic();
  return q.updatedSince !== undefined ? query : query.limit(q.limit);
}
