import { entries, sellAll } from './sizing.js';
import type { HouseCoinView, HouseOrder, HouseStrategy } from './types.js';

/** Momentum: ride coins that rise over both the hour and the day; leave when the hour turns. */
export const MOMENTUM = {
  /** Enter when the last hour rose at least this much (percent) … */
  entry1hPct: 0.5,
  /** … and the last day at least this much. */
  entry24hPct: 2,
  /** Reversal: leave when the last hour fell this much or more. */
  exit1hPct: -0.5,
  stopLossPct: -3,
  takeProfitPct: 5,
} as const;

export const momentum: HouseStrategy = (market, book) => {
  const byId = new Map(market.map((c) => [c.coinId, c]));
  const exits: HouseOrder[] = [];
  for (const p of book.positions) {
    const coin = byId.get(p.coinId);
    if (!coin) continue; // no fresh price: hold until there is one
    const movePct = (coin.priceUsd / p.avgCostUsd - 1) * 100;
    if (movePct <= MOMENTUM.stopLossPct) exits.push(sellAll(p, 'stop_loss'));
    else if (movePct >= MOMENTUM.takeProfitPct) exits.push(sellAll(p, 'take_profit'));
    else if (coin.change1h !== null && coin.change1h <= MOMENTUM.exit1hPct) exits.push(sellAll(p, 'reversal'));
  }
  const held = new Set(book.positions.map((p) => p.coinId));
  const ranked = market
    .filter(
      (c) =>
        !held.has(c.coinId) &&
        c.change1h !== null &&
        c.change24h !== null &&
        c.change1h >= MOMENTUM.entry1hPct &&
        c.change24h >= MOMENTUM.entry24hPct,
    )
    .sort((a, b) => b.change24h! - a.change24h! || (a.coinId < b.coinId ? -1 : 1));
  return [...exits, ...entries(ranked, market, book, book.positions.length - exits.length, () => 'momentum')];
};
