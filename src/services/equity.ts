import { cashTotal, Decimal, type CashBalances } from '../domain/money.js';
import type { MarketFeed } from '../marketdata/feed.js';
import type { Queryable } from '../storage/db.js';
import { equityAdjustments } from './equity-adjustments.js';

export interface HeldUnits {
  coinId: string;
  units: Decimal;
  avgCostUsd: Decimal;
}

/** A coin's mark: the latest known price (stale or not), else its average cost. */
export function markOf(market: MarketFeed, coinId: string, avgCostUsd: Decimal): Decimal {
  const price = market.price(coinId);
  return price ? new Decimal(price.priceUsd) : avgCostUsd;
}

export function holdingsValue(market: MarketFeed, held: HeldUnits[]): Decimal {
  return held.reduce((sum, h) => sum.plus(h.units.times(markOf(market, h.coinId, h.avgCostUsd))), new Decimal(0));
}

export interface Equity {
  cashTotal: Decimal;
  holdingsUsd: Decimal;
  adjustmentsUsd: Decimal;
  totalUsd: Decimal;
}

/** equity = cash total + spot holdings at mark + Σ venue adjustments (futures, PM). */
export async function computeEquity(
  db: Queryable,
  market: MarketFeed,
  keyId: number,
  cash: CashBalances,
  held: HeldUnits[],
  nowMs: number,
): Promise<Equity> {
  const cashSum = cashTotal(cash);
  const holdingsUsd = holdingsValue(market, held);
  const adjustments = await Promise.all(equityAdjustments.map((adjust) => adjust(db, keyId, market, nowMs)));
  const adjustmentsUsd = adjustments.reduce((a, b) => a.plus(b), new Decimal(0));
  return { cashTotal: cashSum, holdingsUsd, adjustmentsUsd, totalUsd: cashSum.plus(holdingsUsd).plus(adjustmentsUsd) };
}
