import type { CoinRef } from '../domain/coin-ref.js';

/** One coin's latest mid price and the instant it was observed. */
export interface PriceObservation {
  coinId: string;
  priceUsd: number;
  /** unix ms of the data's own time (the freshness age is measured from here) */
  asOfMs: number;
}

export interface PriceRange {
  low: number;
  high: number;
}

/**
 * What trading engines and routes read from market data, whatever the source
 * (sim, live or replay). Reads are in-memory and synchronous: requests never call a venue.
 */
export interface MarketFeed {
  /** `sim`, `live:<adapter>` or `replay` (the observation record's `source`). */
  readonly source: string;
  /** The coin's catalogue entry; null for an unknown coin id. */
  coin(coinId: string): CoinRef | null;
  /** Latest mid price; null when the coin is unknown or has no price yet. */
  price(coinId: string): PriceObservation | null;
  /**
   * Lowest and highest price the market traded in (fromMs, toMs], from the finest stored
   * bars (1-minute bars with 10-second ticks in sim); null when nothing is known there.
   * Resting orders fill only when their price lies inside this range.
   */
  priceRange(coinId: string, fromMs: number, toMs: number): PriceRange | null;
}

/** A market that knows no coins (documentation builds and tools that never price anything). */
export const EMPTY_MARKET: MarketFeed = {
  source: 'none',
  coin: () => null,
  price: () => null,
  priceRange: () => null,
};
