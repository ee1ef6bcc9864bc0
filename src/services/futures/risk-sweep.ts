import { firedTrigger } from '../../domain/futures/triggers.js';
import type { FuturesSide } from '../../domain/futures/position-math.js';
import { Decimal } from '../../domain/money.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import type { Db } from '../../storage/db.js';
import {
  coinsWithOpenPositions,
  finishPositionsMany,
  insertFuturesEvents,
  isLockContention,
  lockOpenPositionsById,
  lockWalletsById,
  setWriteLockTimeout,
  triggeredPositions,
} from '../../storage/futures-repo.js';
import { readMark } from './mark.js';
import { planSettlement, type SettlementPlan } from './settle.js';
import { insertClosedTradesMany, postCashMany } from '../../storage/batch-writes.js';

export interface SweepResult {
  coinsPriced: number;
  /** Coins skipped because their mark is missing or older than 120 s. */
  coinsWithoutMark: number;
  candidates: number;
  liquidation: number;
  stop_loss: number;
  take_profit: number;
  /** Batches that lost a lock to a trade write; their positions are retried next minute. */
  batchesDeferred: number;
}

/** Positions settled per transaction: big enough to be quick, small enough to hold locks briefly. */
export const SWEEP_BATCH_SIZE = 250;

/**
 * The per-minute risk sweep (supplement 3.2): one set-based scan finds every open position
 * whose liquidation price, stop-loss or take-profit the current fresh marks reach; then the
 * hits settle in batches (wallets locked in id order, rows re-checked under the lock), each
 * at the mark observed now: liquidation first, then stop-loss, then take-profit. Each batch is
 * stamped with `stampNow()` as it runs (default: `nowMs`), not the sweep's start: a long sweep
 * must not stamp rows further back than the 5 s delta-polling grace (`pollingAsOf`).
 */
export async function sweepFuturesRisk(
  db: Db,
  market: MarketFeed,
  nowMs: number,
  batchSize = SWEEP_BATCH_SIZE,
  stampNow: () => number = () => nowMs,
): Promise<SweepResult> {
  const result: SweepResult = { coinsPriced: 0, coinsWithoutMark: 0, candidates: 0, liquidation: 0, stop_loss: 0, take_profit: 0, batchesDeferred: 0 };
  const marks = new Map<string, Decimal>();
  for (const coinId of await coinsWithOpenPositions(db)) {
    const read = readMark(market, coinId, nowMs);
    if (read.problem || !read.mark) result.coinsWithoutMark += 1;
    else marks.set(coinId, read.mark);
  }
  result.coinsPriced = marks.size;
  const hits = await triggeredPositions(
    db,
    [...marks].map(([coinId, mark]) => ({ coinId, mark: mark.toString() })),
  );
  result.candidates = hits.length;

  for (let start = 0; start < hits.length; start += batchSize) {
    const batch = hits.slice(start, start + batchSize);
    const stampMs = stampNow();
    try {
      const settled = await db.transaction(async (tx) => {
        await setWriteLockTimeout(tx);
        await lockWalletsById(tx, [...new Set(batch.map((h) => h.walletId))].sort((a, b) => a - b));
        const rows = await lockOpenPositionsById(tx, batch.map((h) => h.id));
        const plans: SettlementPlan[] = [];
        for (const row of rows) {
          const mark = marks.get(row.coinId)!;
          const fired = firedTrigger(
            row.side as FuturesSide,
            mark,
            new Decimal(row.liquidationPrice),
            row.stopLossPrice === null ? null : new Decimal(row.stopLossPrice),
            row.takeProfitPrice === null ? null : new Decimal(row.takeProfitPrice),
          );
          if (!fired) continue;
          plans.push(planSettlement({ row, reason: fired, fraction: new Decimal(1), mark, nowMs: stampMs }));
        }
        // the same rows a user close writes (settlementEffects), a few statements per batch
        await postCashMany(tx, plans.map((p) => ({ walletId: p.walletId, postings: p.postings })));
        await insertClosedTradesMany(tx, plans.map((p) => p.trade));
        await finishPositionsMany(
          tx,
          plans.map((p) => ({
            id: p.positionId,
            status: p.reason === 'liquidation' ? 'liquidated' : 'closed',
            exitPrice: p.patch.exitPrice!,
            exitReason: p.reason,
            realizedPnl: p.patch.realizedPnl!,
            atMs: stampMs,
          })),
        );
        await insertFuturesEvents(tx, plans.map((p) => p.event));
        return plans;
      });
      for (const plan of settled) result[plan.reason as Exclude<typeof plan.reason, 'user_close'>] += 1;
    } catch (error) {
      if (!isLockContention(error)) throw error;
      result.batchesDeferred += 1;
    }
  }
  return result;
}
