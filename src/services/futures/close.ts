import { MIN_TRADE_NOTIONAL_MUSD } from '../../domain/execution-model.js';
import { partialCloseBelowMinimum } from '../../domain/futures/position-math.js';
import { Decimal } from '../../domain/money.js';
import type { PositionPatch, TradeEffects } from '../../domain/trade-effects.js';
import { ApiError } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import type { Db } from '../../storage/db.js';
import { WRITE_LOCK_TIMEOUT_MS, type FuturesPositionRow } from '../../storage/futures-repo.js';
import type { BookSnapshot } from '../../storage/trade-write-repo.js';
import { runTradeWrite } from '../trade-write.js';
import { readMark } from './mark.js';
import { planSettlement, type SettlementPlan } from './settle.js';
import { positionView } from './view.js';

/** The key's position as read, or 404 / 409 (supplement 1.6, 1.7). */
function belowMinimum(part: 'closed' | 'remaining'): ApiError {
  const message =
    part === 'closed'
      ? `the closed part must be worth at least ${MIN_TRADE_NOTIONAL_MUSD} mUSD at the mark`
      : `the part left open must be worth at least ${MIN_TRADE_NOTIONAL_MUSD} mUSD at the mark; close the whole position with fraction 1`;
  // invalid_request like every other refused fraction (supplement 1.7); the reason as a block reason, as spot gives it
  return new ApiError(400, 'invalid_request', message, { field: 'body.fraction', blockReasons: ['below_min_notional'] });
}

export function ownOpenPosition(book: BookSnapshot, positionId: number): FuturesPositionRow {
  const row = book.position;
  if (!row) throw new ApiError(404, 'position_not_found', `no futures position ${positionId} for this key`);
  if (row.status !== 'open') throw new ApiError(409, 'position_not_open', `futures position ${positionId} is ${row.status}`);
  return row;
}

export const noMark = (coinId: string): ApiError =>
  new ApiError(422, 'no_mark', `no fresh mark price (≤ 120 s) for coin ${coinId}; try again shortly`);

/** A settlement plan (settle.ts) as the effects of one write. */
export function settlementEffects(plan: SettlementPlan): TradeEffects {
  const { createdAt, ...event } = plan.event;
  return {
    cash: plan.postings,
    trade: { ...plan.trade, detail: plan.trade.detail ?? {} },
    positionChange: { id: plan.positionId, patch: plan.patch as PositionPatch },
    positionEvents: [{ ...event, positionId: plan.positionId, atMs: (createdAt as Date).getTime() } as NonNullable<TradeEffects['positionEvents']>[number]],
  };
}

/**
 * Closes `fraction` of the key's position at the fresh mark, idempotent by (key,
 * idempotencyKey): one read, planSettlement, one write. A mark through the liquidation price
 * settles the whole position as a liquidation.
 */
export async function closeFuturesPosition(
  db: Db,
  market: Pick<MarketFeed, 'price'>,
  nowMs: number,
  req: { keyId: number; positionId: number; fraction: number; idempotencyKey: string },
  idempotency: { route: string; body: Record<string, unknown> },
): Promise<{ statusCode: number; body: Record<string, unknown>; replay: boolean }> {
  const result = await runTradeWrite(db, {
    read: { keyId: req.keyId, positionId: req.positionId },
    idempotency: { idempotencyKey: req.idempotencyKey, ...idempotency },
    lockTimeoutMs: WRITE_LOCK_TIMEOUT_MS,
    decide: (book) => {
      const row = ownOpenPosition(book, req.positionId);
      const read = readMark(market, row.coinId, nowMs);
      if (read.problem || !read.mark) throw noMark(row.coinId);
      const fraction = new Decimal(req.fraction);
      const small = partialCloseBelowMinimum(new Decimal(row.sizeCoin), fraction, read.mark);
      if (small) throw belowMinimum(small);
      const plan = planSettlement({ row, reason: 'user_close', fraction, mark: read.mark, nowMs, idempotencyKey: req.idempotencyKey });
      const settled = { ...row, ...plan.patch } as FuturesPositionRow;
      return { effects: settlementEffects(plan), statusCode: 200, body: { position: positionView(settled, read.mark) }, result: null };
    },
  });
  return { statusCode: result.statusCode, body: result.body, replay: result.replay };
}
