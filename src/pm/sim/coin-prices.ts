/**
 * The simulated coins' prices as the PM simulator sees them, so price-threshold questions are
 * set from, and settle against, the same path the market serves. The path is deterministic
 * (seeded, keyed on absolute minutes), so questions stay a function of the seed and time.
 */
import { CANDLE_RANGE_NAMES, type Candle, type CandleRange } from '../../domain/candles.js';
import type { MarketReads } from '../../marketdata/reads.js';

/** A coin's USD price at an instant, or null when the path does not show it (yet). */
export type CoinPriceAt = (coinId: string, atMs: number) => number | null;

export interface CoinPrices {
  /** The price the path shows at an instant (null past the last quote: thresholds anchor and settle on it). */
  priceAt: CoinPriceAt;
  /** The price known at an instant: priceAt, or past the last quote that quote (never a later price). */
  knownAt: CoinPriceAt;
  /** Multiplies the coins' daily volatility (the fast profile moves 3× as much). */
  volatilityScale: number;
}

/**
 * Reads prices from the market's bars, finest range first. An instant on a bar's open (every
 * threshold anchor and settlement time is one) reads that bar's open: the minute-state price
 * itself, the same in every range that holds it. Other instants read the open of the bar
 * containing them; instants after the market's last quote read null.
 */
export function coinPricesFromMarket(reads: Pick<MarketReads, 'candles' | 'quote' | 'version'>, volatilityScale: number): CoinPrices {
  let version = -1;
  const cache = new Map<string, Candle[]>();
  const bars = (coinId: string, range: CandleRange) => {
    if (reads.version() !== version) {
      cache.clear();
      version = reads.version();
    }
    const key = `${coinId}|${range}`;
    let list = cache.get(key);
    if (!list) cache.set(key, (list = reads.candles(coinId, range)));
    return list;
  };
  const priceAt: CoinPriceAt = (coinId, atMs) => {
    const quote = reads.quote(coinId);
    if (!quote || atMs > quote.asOfMs) return null;
    const atSec = atMs / 1000;
    for (const range of CANDLE_RANGE_NAMES) {
      const list = bars(coinId, range);
      if (list.length === 0 || list[0]!.t > atSec) continue;
      let lo = 0;
      let hi = list.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (list[mid]!.t <= atSec) lo = mid;
        else hi = mid - 1;
      }
      const bar = list[lo]!;
      if (bar.t === atSec || lo < list.length - 1) return bar.o;
      return quote.priceUsd; // inside the bar under way: the latest price
    }
    return null;
  };
  // Between two ticks the path shows nothing yet for "now": an open question reads the last quote
  // (read through priceAt alone it found no price and sat at 50 % whenever the ingest ran off a tick).
  const knownAt: CoinPriceAt = (coinId, atMs) => {
    const quote = reads.quote(coinId);
    if (!quote) return null;
    return atMs > quote.asOfMs ? quote.priceUsd : priceAt(coinId, atMs);
  };
  return { priceAt, knownAt, volatilityScale };
}
