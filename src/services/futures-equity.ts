import { unrealizedPnl, type FuturesSide } from '../domain/futures/position-math.js';
import { Decimal } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import type { Queryable } from '../storage/db.js';
import { openPositionsOfKey } from '../storage/futures-repo.js';

export interface OpenFuturesMark {
  coinId: string;
  side: string;
  entryPrice: string;
  sizeCoin: string;
  margin: string;
}

/**
 * What open futures positions add to portfolio equity beyond cash: the sum of their
 * unrealized price PnL at the mark, never below −margin (their margin already sits in cash
 * `frozenFutures`).
 * A valuation, not a write: it uses the latest mark whatever its age; a coin with no price
 * at all adds 0.
 */
export function valueOpenFutures(rows: OpenFuturesMark[], market: MarketFeed): Decimal {
  let total = new Decimal(0);
  for (const row of rows) {
    const price = market.price(row.coinId);
    if (!price || !(price.priceUsd > 0)) continue;
    total = total.plus(unrealizedPnl(row.side as FuturesSide, new Decimal(row.entryPrice), new Decimal(price.priceUsd), new Decimal(row.sizeCoin), new Decimal(row.margin)));
  }
  return total.toDecimalPlaces(8);
}

/** The same for one key, read on its own (risk tooling and tests); `nowMs` values every venue at one instant. */
export async function futuresEquityAdjustment(db: Queryable, keyId: number, market: MarketFeed, nowMs: number): Promise<Decimal> {
  void nowMs;
  return valueOpenFutures(await openPositionsOfKey(db, keyId), market);
}
