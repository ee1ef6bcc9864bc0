import { entries, sellAll } from './sizing.js';
import type { HouseCoinView, HouseOrder, HouseStrategy } from './types.js';

/** Mean reversion: buy a sharp dip below the recent 5-minute average; sell once back at it. */
export const MEAN_REVERSION = {
  /** Completed 5-minute bars in the average (4 hours). */
  lookbackBars: 48,
  /** Enter at this many standard deviations below the average or lower. */
  entryZ: -2,
  /** Leave once the price is back to this z-score. */
  exitZ: 0,
  stopLossPct: -4,
  /** Ignore coins that barely move (stablecoins): relative sd below this. */
  minRelativeSd: 0.001,
} as const;

/** z-score of the price against the completed bars' closes; null without enough bars or movement. */
export function zScore(coin: HouseCoinView): number | null {
  const closes = coin.closes5m.slice(0, -1).slice(-MEAN_REVERSION.lookbackBars);
  if (closes.length < MEAN_REVERSION.lookbackBars) return null;
  const mean = closes.reduce((s, c) => s + c, 0) / closes.length;
  const sd = Math.sqrt(closes.reduce((s, c) => s + (c - mean) ** 2, 0) / (closes.length - 1));
  if (!(mean > 0) || sd / mean < MEAN_REVERSION.minRelativeSd) return null;
  return (coin.priceUsd - mean) / sd;
}

export const meanReversion: HouseStrategy = (market, book) => {
  const byId = new Map(market.map((c) => [c.coinId, c]));
  const exits: HouseOrder[] = [];
  for (const p of book.positions) {
    const coin = byId.get(p.coinId);
    if (!coin) continue;
    const z = zScore(coin);
    if ((coin.priceUsd / p.avgCostUsd - 1) * 100 <= MEAN_REVERSION.stopLossPct) exits.push(sellAll(p, 'stop_loss'));
    else if (z !== null && z >= MEAN_REVERSION.exitZ) exits.push(sellAll(p, 'reverted'));
  }
  const held = new Set(book.positions.map((p) => p.coinId));
  const ranked = market
    .filter((c) => !held.has(c.coinId))
    .map((c) => ({ c, z: zScore(c) }))
    .filter((x): x is { c: HouseCoinView; z: number } => x.z !== null && x.z <= MEAN_REVERSION.entryZ)
    .sort((a, b) => a.z - b.z || (a.c.coinId < b.c.coinId ? -1 : 1))
    .map((x) => x.c);
  return [...exits, ...entries(ranked, market, book, book.positions.length - exits.length, () => 'dip')];
};
