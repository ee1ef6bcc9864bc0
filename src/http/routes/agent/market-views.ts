/** Wire shapes of the coin reads (contract 2.4, 2.7, 2.8). */
import type { CoinRef } from '../../../domain/coin-ref.js';

/** A coin as `resolve` lists it (contract 2.4). */
export function coinMatchView(coin: CoinRef) {
  return {
    coinId: coin.coinId,
    slug: coin.slug,
    symbol: coin.symbol,
    name: coin.name,
    marketCapRank: coin.rank,
    categories: [...coin.categories],
  };
}
