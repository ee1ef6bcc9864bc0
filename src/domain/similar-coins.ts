/** Peers of a coin for its market context: shared sectors first, then market-cap neighbours. */
import { rankOrder, type CoinRef } from './coin-ref.js';

export interface SimilarCoin<T extends CoinRef> {
  coin: T;
  sharedCategoryCount: number;
}

export const DEFAULT_SIMILAR_LIMIT = 6;

function categorySet(coin: CoinRef): Set<string> {
  return new Set(coin.categories.map((c) => c.toLowerCase()));
}

/**
 * Other coins ordered by the number of categories shared with `coinId` (most first),
 * then by closeness in market-cap rank, then by rank. Empty for an unknown coin.
 */
export function similarCoins<T extends CoinRef>(coins: readonly T[], coinId: string, limit: number = DEFAULT_SIMILAR_LIMIT): SimilarCoin<T>[] {
  const target = coins.find((c) => c.coinId === coinId);
  if (target === undefined) return [];
  const mine = categorySet(target);
  const targetRank = rankOrder(target.rank);
  const distance = (c: T): number => {
    const d = Math.abs(rankOrder(c.rank) - targetRank);
    return Number.isNaN(d) ? Number.POSITIVE_INFINITY : d; // both unranked
  };
  return coins
    .filter((c) => c.coinId !== coinId)
    .map((coin) => ({ coin, sharedCategoryCount: [...categorySet(coin)].filter((c) => mine.has(c)).length }))
    .sort(
      (a, b) =>
        b.sharedCategoryCount - a.sharedCategoryCount ||
        distance(a.coin) - distance(b.coin) ||
        rankOrder(a.coin.rank) - rankOrder(b.coin.rank) ||
        a.coin.coinId.localeCompare(b.coin.coinId),
    )
    .slice(0, Math.max(0, limit));
}
