/** Realized-trade counters per venue, as the Arena and competition boards serve them. */
import { Decimal, toWire } from '../domain/money.js';
export const VENUES = ['spot', 'futures', 'pm'] as const;
export type ArenaVenue = (typeof VENUES)[number];

export interface Counts {
  pnl: number;
  trades: number;
  wins: number;
  losses: number;
  neutrals: number;
}
export type VenueCounts = Record<ArenaVenue, Counts>;

export const emptyCounts = (): Counts => ({ pnl: 0, trades: 0, wins: 0, losses: 0, neutrals: 0 });
export const emptyVenueCounts = (): VenueCounts => ({ spot: emptyCounts(), futures: emptyCounts(), pm: emptyCounts() });

export function addCounts(into: Counts, c: Counts): void {
  into.pnl += c.pnl;
  into.trades += c.trades;
  into.wins += c.wins;
  into.losses += c.losses;
  into.neutrals += c.neutrals;
}

export function totalOf(v: VenueCounts): Counts {
  const t = emptyCounts();
  for (const venue of VENUES) addCounts(t, v[venue]);
  t.pnl = roundMusd(t.pnl);
  return t;
}

/** Decided = a realized win or loss; neutral (PnL exactly 0) is not decided. */
export const decidedOf = (c: Counts) => c.wins + c.losses;
/** Wins / decided, to 8 places as `/api/agent/performance` sends it (half to even). */
export const winRateOf = (c: Counts) => (decidedOf(c) > 0 ? toWire(new Decimal(c.wins).div(decidedOf(c))) : null);

/** Money leaves as a number rounded to 8 places, like every other mUSD amount. */
export const roundMusd = (x: number) => Math.round(x * 1e8) / 1e8;

/**
 * One venue's performance block (supplement §2.7): the record `/api/agent/performance` sends,
 * so `tradeCount` counts the trades with a realized PnL (wins, losses, neutral) as it does; the
 * agent row's own `tradeCount` counts every trade (buy fills too).
 */
export function countsView(c: Counts) {
  return {
    realizedPnlMusd: roundMusd(c.pnl),
    tradeCount: c.wins + c.losses + c.neutrals,
    winCount: c.wins,
    lossCount: c.losses,
    neutralCount: c.neutrals,
    winRate: winRateOf(c),
  };
}

export function byVenueView(v: VenueCounts) {
  return { spot: countsView(v.spot), futures: countsView(v.futures), pm: countsView(v.pm) };
}
