import { spotMarketFill } from '../domain/execution-model.js';
import { matchRestingOrder, widenRange } from '../domain/spot.js';
import { isMarketable, type RestingFillPrice } from '../domain/spot-orders.js';
import { Decimal } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import { fillRestingOrder, usablePrice } from '../services/spot-trading.js';
import type { Database } from '../storage/db.js';
import { advanceCheckedUntil, listRestingOrders, markTriggered, type SpotOrderRow } from '../storage/spot-orders-repo.js';

export const SPOT_MATCHING_INTERVAL_MS = 10_000;
const BATCH = 1000;
/**
 * priceRange answers from whole 1-minute bars, so a bar that began before the order rested
 * may hold earlier prices. The range is read from the next whole minute on; the gap is covered
 * by the latest price (tick-exact), which the matcher sees on every run.
 */
export const FEED_BAR_MS = 60_000;
/**
 * A still-resting order's `checkedUntil` moves forward only once it is this old. Re-examining a
 * range the order already missed gives the same verdict (its prices are fixed), so the mark only
 * bounds how much history a pass reads; advancing it every pass rewrote every resting row every
 * 10 s, and PGlite (no autovacuum) kept each dead copy.
 */
export const CHECKED_UNTIL_STEP_MS = 15 * 60_000;

export interface MatchingResult {
  examined: number;
  filled: number;
  triggered: number;
}

/**
 * One pass of the resting-order matcher. For each open limit / stop-limit order it asks the
 * market what traded since its check mark (priceRange from the first whole minute after
 * checkedUntil, plus the latest fresh price if it is newer than checkedUntil)
 * and fills at the limit price only when that range reaches it: never outside what the market
 * actually traded while the order rested. A stop that triggers while its limit is marketable
 * at the latest price fills at once as a taker (market execution price, never worse than the limit);
 * it is marked triggered first, so its row says the stop was hit. Each fill is its own
 * transaction on the owner's locked book, so a crash between fills loses or repeats nothing.
 * Fills and triggers are stamped with `stampNow()` as they happen (default: `nowMs`), not the
 * pass's start: a long pass must not stamp rows further back than the 5 s delta-polling grace.
 */
export async function matchRestingOrders(database: Database, market: MarketFeed, nowMs: number, stampNow: () => number = () => nowMs): Promise<MatchingResult> {
  const result: MatchingResult = { examined: 0, filled: 0, triggered: 0 };
  let afterId = 0;
  for (;;) {
    const orders = await listRestingOrders(database.db, BATCH, afterId);
    if (orders.length === 0) break;
    afterId = orders.at(-1)!.id;
    const advance: number[] = [];
    for (const order of orders) {
      result.examined += 1;
      const fromMs = order.checkedUntil.getTime();
      if (fromMs >= nowMs) continue;
      const latest = usablePrice(market, order.coinId, nowMs);
      const fresh = latest && latest.asOfMs > fromMs ? latest.priceUsd : null;
      const barsFromMs = Math.ceil(fromMs / FEED_BAR_MS) * FEED_BAR_MS;
      const bars = barsFromMs < nowMs ? market.priceRange(order.coinId, barsFromMs, nowMs) : null;
      const range = widenRange(bars, fresh);
      const verdict = matchRestingOrder(
        {
          side: order.side,
          orderType: order.orderType,
          status: order.status as 'open' | 'triggered',
          limitPrice: new Decimal(order.limitPrice),
          stopPrice: order.stopPrice === null ? null : new Decimal(order.stopPrice),
        },
        range,
      );
      if (verdict === 'fill') {
        if ((await fillRestingOrder(database.db, order, stampNow())) !== null) result.filled += 1;
      } else if (verdict === 'trigger') {
        const stampMs = stampNow();
        await markTriggered(database.db, order.id, stampMs, nowMs);
        // a stop that triggers while its limit is marketable executes now as a taker
        const taker = latest ? takerPrice(market, order, new Decimal(latest.priceUsd)) : null;
        if (taker && (await fillRestingOrder(database.db, order, stampMs, taker)) !== null) result.filled += 1;
        result.triggered += 1;
      } else if (nowMs - fromMs >= CHECKED_UNTIL_STEP_MS) {
        advance.push(order.id);
      }
    }
    await advanceCheckedUntil(database.db, advance, nowMs);
    if (orders.length < BATCH) break;
  }
  return result;
}

/** The taker price of a triggered stop-limit at this mid, when its limit is marketable there. */
function takerPrice(market: MarketFeed, order: SpotOrderRow, mid: Decimal): RestingFillPrice | null {
  const rank = market.coin(order.coinId)?.rank ?? null;
  const { executionPrice } = spotMarketFill(order.side, mid, new Decimal(order.quantity), rank);
  return isMarketable(order.side, new Decimal(order.limitPrice), executionPrice) ? { kind: 'taker', mid, rank } : null;
}
