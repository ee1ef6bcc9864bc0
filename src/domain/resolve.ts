/**
 * Symbol resolution: a free-text query to the coin an agent most likely means.
 * Symbols are not unique, so ties go to the larger market cap (lower rank).
 */
import { rankOrder, type CoinRef } from './coin-ref.js';

export interface ResolveResult<T extends CoinRef> {
  query: string;
  match: T | null;
  alternatives: T[];
}

export const DEFAULT_MAX_ALTERNATIVES = 10;
/** Shorter queries only match exactly or as a prefix; "a" inside every name would be noise. */
const MIN_SUBSTRING_LENGTH = 3;

// How well a coin fits: lower is better; null = no fit.
const EXACT_SYMBOL = 0;
const EXACT_ID = 1;
const EXACT_SLUG_OR_NAME = 2;
const PREFIX = 3;
const SUBSTRING = 4;

/** Case and compatibility forms folded (full-width ＢＴＣ is BTC). */
function normalize(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase();
}

function fit(coin: CoinRef, q: string): number | null {
  const symbol = coin.symbol.toLowerCase();
  const slug = coin.slug.toLowerCase();
  const name = coin.name.toLowerCase();
  if (symbol === q) return EXACT_SYMBOL;
  if (coin.coinId === q) return EXACT_ID;
  if (slug === q || name === q) return EXACT_SLUG_OR_NAME;
  if (symbol.startsWith(q) || slug.startsWith(q) || name.startsWith(q)) return PREFIX;
  if (q.length >= MIN_SUBSTRING_LENGTH && (slug.includes(q) || name.includes(q))) return SUBSTRING;
  return null;
}

/**
 * Best match and other candidates, case-insensitively against symbol, id, slug and name:
 * exact symbol first, then the exact coin id (an agent holding a UCID gets its coin, not a
 * symbol starting with it), then exact slug or name, then prefix, then (3+ characters)
 * substring; within each tier by market-cap rank. Null match when nothing fits.
 */
export function resolveCoin<T extends CoinRef>(
  coins: readonly T[],
  query: string,
  maxAlternatives: number = DEFAULT_MAX_ALTERNATIVES,
): ResolveResult<T> {
  const q = normalize(query);
  if (q === '') return { query, match: null, alternatives: [] };
  const ranked = coins
    .map((coin) => ({ coin, tier: fit(coin, q) }))
    .filter((c): c is { coin: T; tier: number } => c.tier !== null)
    .sort(
      (a, b) =>
        a.tier - b.tier ||
        rankOrder(a.coin.rank) - rankOrder(b.coin.rank) ||
        a.coin.coinId.localeCompare(b.coin.coinId),
    )
    .map((c) => c.coin);
  return { query, match: ranked[0] ?? null, alternatives: ranked.slice(1, 1 + Math.max(0, maxAlternatives)) };
}
