import type { FuturesSide } from '../../domain/futures/position-math.js';
import { triggerProblems } from '../../domain/futures/triggers.js';
import { Decimal } from '../../domain/money.js';
import { blocked } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import type { Tx } from '../../storage/db.js';
import { insertFuturesEvents, updatePosition, type FuturesPositionRow, type FuturesPositionPatch } from '../../storage/futures-repo.js';
import { lockOwnOpenPosition, noMark } from './close.js';
import { readMark } from './mark.js';

export interface SlTpRequest {
  keyId: number;
  positionId: number;
  /** number sets, null clears, undefined keeps. */
  stopLossPrice?: number | null;
  takeProfitPrice?: number | null;
}

/**
 * Sets or clears the resting triggers. Prices being set are checked against the current
 * fresh mark and the liquidation price (long `liq < SL < mark < TP`, short mirrored).
 */
export async function setTriggers(
  tx: Tx,
  market: MarketFeed,
  nowMs: number,
  req: SlTpRequest,
): Promise<{ row: FuturesPositionRow; mark: Decimal | null }> {
  const row = await lockOwnOpenPosition(tx, req.keyId, req.positionId);
  const settingSome = typeof req.stopLossPrice === 'number' || typeof req.takeProfitPrice === 'number';
  const read = readMark(market, row.coinId, nowMs);
  if (req.stopLossPrice === undefined && req.takeProfitPrice === undefined) return { row, mark: read.problem ? null : read.mark };
  if (settingSome) {
    if (read.problem || !read.mark) throw noMark(row.coinId);
    const sl = typeof req.stopLossPrice === 'number' ? new Decimal(req.stopLossPrice) : null;
    const tp = typeof req.takeProfitPrice === 'number' ? new Decimal(req.takeProfitPrice) : null;
    const reasons = triggerProblems(row.side as FuturesSide, read.mark, new Decimal(row.liquidationPrice), sl, tp);
    if (reasons.length > 0) throw blocked(422, 'sl_tp_invalid', reasons, `the stop-loss / take-profit is invalid: ${reasons.join(', ')}`);
  }
  const patch: FuturesPositionPatch = { updatedAt: new Date(nowMs) };
  if (req.stopLossPrice !== undefined) patch.stopLossPrice = req.stopLossPrice === null ? null : String(req.stopLossPrice);
  if (req.takeProfitPrice !== undefined) patch.takeProfitPrice = req.takeProfitPrice === null ? null : String(req.takeProfitPrice);
  const updated = await updatePosition(tx, row.id, patch);
  await insertFuturesEvents(tx, [
    {
      positionId: row.id,
      keyId: row.keyId,
      type: 'sl_tp_set',
      sizeDeltaCoin: '0',
      markPrice: read.mark ? read.mark.toString() : null,
      fillPrice: null,
      realizedPnl: null,
      marginDelta: '0',
      fee: '0',
      slippage: '0',
      executionVersion: null,
      idempotencyKey: null,
      createdAt: new Date(nowMs),
    },
  ]);
  return { row: updated, mark: read.problem ? null : read.mark };
}
