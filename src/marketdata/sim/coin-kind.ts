import type { Coin } from '../coins.js';

/** How a coin moves: USD-pegged stablecoin, tokenized gold, or an ordinary crypto asset. */
export type CoinKind = 'stable' | 'gold' | 'crypto';

const STABLE_CATEGORIES = new Set(['stablecoin', 'usd stablecoin', 'fiat stablecoin']);

// Tickers of USD-pegged coins, for rows whose categories are missing (e.g. USDG has none).
const USD_PEGGED_SYMBOLS = new Set([
  'USDT', 'USDC', 'DAI', 'FDUSD', 'USDE', 'TUSD', 'USDP', 'GUSD', 'PYUSD', 'USDD', 'USD1',
  'USDG', 'USDK', 'BUSD', 'FRAX', 'LUSD', 'USDS', 'CRVUSD', 'GHO', 'USDX', 'USDJ', 'USDB',
]);

// A "stablecoin" that no longer trades near $1 (USTC, or RSR's tag) is simulated as a normal coin.
const PEG_TOLERANCE = 0.03;

/** A coin pinned near $1: stablecoin by category or ticker, and still trading near the peg. */
export function isPeggedStablecoin(coin: Pick<Coin, 'symbol' | 'categories' | 'priceUsd'>): boolean {
  const tagged = coin.categories.some((c) => STABLE_CATEGORIES.has(c.toLowerCase()));
  const known = USD_PEGGED_SYMBOLS.has(coin.symbol.toUpperCase());
  return (tagged || known) && Math.abs(coin.priceUsd - 1) <= PEG_TOLERANCE;
}

export function coinKind(coin: Pick<Coin, 'symbol' | 'categories' | 'priceUsd'>): CoinKind {
  if (isPeggedStablecoin(coin)) return 'stable';
  if (coin.categories.some((c) => c.toLowerCase() === 'tokenized gold')) return 'gold';
  return 'crypto';
}
