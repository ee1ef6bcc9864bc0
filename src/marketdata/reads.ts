import type { Candle, CandleRange } from '../domain/candles.js';
import type { FearGreed } from '../domain/fear-greed.js';
import type { SentimentView } from '../domain/market-stats.js';
import type { Coin } from './coins.js';
import type { MarketFeed } from './feed.js';

/** One coin's market figures at the latest price. */
export interface CoinQuote {
  coinId: string;
  priceUsd: number;
  /** Percentages (2.5 = +2.5 %); null when history does not reach back far enough. */
  change1h: number | null;
  change24h: number | null;
  change7d: number | null;
  marketCapUsd: number | null;
  volume24hUsd: number;
  sentiment: SentimentView;
  asOfMs: number;
}

/** The richer reads of the market routes (context, candles, resolve, movers), in memory. */
export interface MarketReads extends MarketFeed {
  /** The whole coin universe, in market-cap rank order. */
  coins(): readonly Coin[];
  quote(coinId: string): CoinQuote | null;
  /** Global Fear & Greed; null until the market has a day of history. */
  fearGreed(): FearGreed | null;
  /** The range's bars in USD, oldest to newest, the newest containing now; [] for an unknown coin. */
  candles(coinId: string, range: CandleRange): Candle[];
  /** Fiat units per USD now; null for an unsupported code. */
  fiatRate(code: string): number | null;
  /** Changes whenever prices or bars change (a cache key for serialized reads). */
  version(): number;
}
