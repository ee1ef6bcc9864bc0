import { Decimal } from '../../domain/money.js';
import { ApiError } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import { lockWallet } from '../../storage/books-repo.js';
import type { Tx } from '../../storage/db.js';
import { lockPosition, type FuturesPositionRow } from '../../storage/futures-repo.js';
import { readMark } from './mark.js';
import { settlePosition, type Settled } from './settle.js';

/** The key's position, locked, or 404 / 409 (supplement 1.6, 1.7). */
export async function lockOwnOpenPosition(tx: Tx, keyId: number, positionId: number): Promise<FuturesPositionRow> {
  const row = await lockPosition(tx, keyId, positionId);
  if (!row) throw new ApiError(404, 'position_not_found', `no futures position ${positionId} for this key`);
  if (row.status !== 'open') throw new ApiError(409, 'position_not_open', `futures position ${positionId} is ${row.status}`);
  return row;
}

export const noMark = (coinId: string): ApiError =>
  new ApiError(422, 'no_mark', `no fresh mark price (≤ 120 s) for coin ${coinId}; try again shortly`);

/**
 * Closes `fraction` of the key's position at the fresh mark, in the caller's transaction.
 * A mark through the liquidation price settles the whole position as a liquidation.
 */
export async function closePosition(
  tx: Tx,
  market: MarketFeed,
  nowMs: number,
  req: { keyId: number; positionId: number; fraction: number; idempotencyKey?: string },
): Promise<Settled & { mark: Decimal }> {
  // Wallet before position: the order the risk job locks in too.
  await lockWallet(tx, req.keyId);
  const row = await lockOwnOpenPosition(tx, req.keyId, req.positionId);
  const read = readMark(market, row.coinId, nowMs);
  if (read.problem || !read.mark) throw noMark(row.coinId);
  const settled = await settlePosition(tx, {
    row,
    reason: 'user_close',
    fraction: new Decimal(req.fraction),
    mark: read.mark,
    nowMs,
    idempotencyKey: req.idempotencyKey ?? null,
  });
  return { ...settled, mark: read.mark };
}
