/** The catalogue fields of a coin that search and peer lookups need. */
export interface CoinRef {
  coinId: string;
  slug: string;
  symbol: string;
  name: string;
  /** Market-cap rank (1 = largest); null when unranked. */
  rank: number | null;
  categories: readonly string[];
}

/** Unranked coins sort after every ranked one. */
export function rankOrder(rank: number | null): number {
  return rank ?? Number.POSITIVE_INFINITY;
}
