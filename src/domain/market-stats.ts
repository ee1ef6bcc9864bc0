/** Small pure figures shown with a coin's market context. */

/** Percentage change from `past` to `now` (2.5 means +2.5 %); null without a usable past price. */
export function percentChange(now: number, past: number | null | undefined): number | null {
  if (past === null || past === undefined || !(past > 0) || !Number.isFinite(now)) return null;
  return (now / past - 1) * 100;
}

export interface SentimentView {
  bullishVotes: number;
  bearishVotes: number;
  totalVotes: number;
  /** Integer percentage of bullish votes; null when nobody voted yet. */
  bullishPct: number | null;
}

export function sentimentView(bullishVotes: number, bearishVotes: number): SentimentView {
  const bullish = Math.max(0, Math.round(bullishVotes));
  const bearish = Math.max(0, Math.round(bearishVotes));
  const total = bullish + bearish;
  return { bullishVotes: bullish, bearishVotes: bearish, totalVotes: total, bullishPct: total === 0 ? null : Math.round((100 * bullish) / total) };
}

/**
 * Daily volatility (standard deviation of daily log-return) estimated from evenly spaced
 * prices `barSeconds` apart, oldest first; null with fewer than two usable returns.
 */
export function realizedDailyVolatility(prices: readonly number[], barSeconds: number): number | null {
  let sumSquares = 0;
  let returns = 0;
  for (let i = 1; i < prices.length; i += 1) {
    const a = prices[i - 1]!;
    const b = prices[i]!;
    if (!(a > 0 && b > 0)) continue;
    const r = Math.log(b / a);
    sumSquares += r * r;
    returns += 1;
  }
  if (returns < 2) return null;
  return Math.sqrt((sumSquares / returns) * (86_400 / barSeconds));
}
