import type { CoinRef } from '../../src/domain/coin-ref.js';
import type { MarketFeed, PriceObservation, PriceRange } from '../../src/marketdata/feed.js';

interface Tick {
  atMs: number;
  priceUsd: number;
}

/**
 * A market whose prices tests set by hand: `set(coinId, price, atMs)` records a tick, and
 * priceRange() answers from the recorded ticks, so matching jobs see exactly what a test drove.
 */
export class FixedMarketFeed implements MarketFeed {
  readonly source = 'sim';
  private readonly coins = new Map<string, CoinRef>();
  private readonly ticks = new Map<string, Tick[]>();

  constructor(coins: CoinRef[] = DEFAULT_TEST_COINS) {
    for (const c of coins) this.coins.set(c.coinId, c);
  }

  set(coinId: string, priceUsd: number, atMs: number): void {
    const list = this.ticks.get(coinId) ?? [];
    list.push({ atMs, priceUsd });
    list.sort((a, b) => a.atMs - b.atMs);
    this.ticks.set(coinId, list);
  }

  coin(coinId: string): CoinRef | null {
    return this.coins.get(coinId) ?? null;
  }

  price(coinId: string): PriceObservation | null {
    const last = this.ticks.get(coinId)?.at(-1);
    return this.coins.has(coinId) && last ? { coinId, priceUsd: last.priceUsd, asOfMs: last.atMs } : null;
  }

  priceRange(coinId: string, fromMs: number, toMs: number): PriceRange | null {
    const inside = (this.ticks.get(coinId) ?? []).filter((t) => t.atMs > fromMs && t.atMs <= toMs).map((t) => t.priceUsd);
    return inside.length === 0 ? null : { low: Math.min(...inside), high: Math.max(...inside) };
  }
}

export const DEFAULT_TEST_COINS: CoinRef[] = [
  { coinId: '1', slug: 'bitcoin', symbol: 'BTC', name: 'Bitcoin', rank: 1, categories: ['Layer 1', 'Store of Value'] },
  { coinId: '1027', slug: 'ethereum', symbol: 'ETH', name: 'Ethereum', rank: 2, categories: ['Layer 1', 'Smart Contracts'] },
  { coinId: '825', slug: 'tether', symbol: 'USDT', name: 'Tether', rank: 3, categories: ['Stablecoin'] },
  { coinId: '5426', slug: 'solana', symbol: 'SOL', name: 'Solana', rank: 5, categories: ['Layer 1'] },
];
