import { spotFreshness, SPOT_STALE_AFTER_SECONDS, type Freshness } from '../../domain/freshness.js';
import { Decimal } from '../../domain/money.js';
import type { MarketFeed } from '../../marketdata/feed.js';

export interface MarkRead {
  /** The mark; null when the coin has no price at all. */
  mark: Decimal | null;
  asOfMs: number | null;
  freshness: Freshness;
  /** Why a write may not use it: no price, or older than 120 s. */
  problem: 'price_unavailable' | 'price_stale' | null;
}

/** The futures mark is the feed's latest mid; writes need it fresh (≤ 120 s, supplement 3.6). */
export function readMark(market: Pick<MarketFeed, 'price'>, coinId: string, nowMs: number): MarkRead {
  const price = market.price(coinId);
  if (!price || !(price.priceUsd > 0)) {
    return { mark: null, asOfMs: null, freshness: spotFreshness(null, nowMs), problem: 'price_unavailable' };
  }
  const freshness = spotFreshness(price.asOfMs, nowMs);
  const stale = nowMs - price.asOfMs > SPOT_STALE_AFTER_SECONDS * 1000;
  return { mark: new Decimal(price.priceUsd), asOfMs: price.asOfMs, freshness, problem: stale ? 'price_stale' : null };
}
