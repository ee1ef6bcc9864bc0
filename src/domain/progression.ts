/**
 * Progression shown in the portfolio (contract §2.2; supplement 2.1 leaves it to us). A tiny,
 * documented model computed from the trade log, nothing stored:
 * - xpPoints = 10 per decided trade (realized win or loss, any venue) + 15 more per win;
 * - league = the highest tier whose xp floor is reached (bronze 0, silver 100, gold 500,
 *   platinum 2000, diamond 5000);
 * - rankInLeague = null (no league standings are computed);
 * - tasks = a few first steps, each `done` or not.
 */
export const XP_PER_DECIDED_TRADE = 10;
export const XP_PER_WIN = 15;
export const LEAGUES: readonly { name: string; minXp: number }[] = [
  { name: 'bronze', minXp: 0 },
  { name: 'silver', minXp: 100 },
  { name: 'gold', minXp: 500 },
  { name: 'platinum', minXp: 2000 },
  { name: 'diamond', minXp: 5000 },
];

export interface ProgressionInput {
  tradeRows: number;
  decidedTrades: number;
  wins: number;
  ordersPlaced: number;
}

export interface Progression {
  league: string | null;
  xpPoints: number;
  rankInLeague: number | null;
  nextLeague: { name: string; xpNeeded: number } | null;
  tasks: { id: string; title: string; done: boolean }[];
}

export function progression(p: ProgressionInput): Progression {
  const xpPoints = p.decidedTrades * XP_PER_DECIDED_TRADE + p.wins * XP_PER_WIN;
  const reached = LEAGUES.filter((l) => xpPoints >= l.minXp);
  const next = LEAGUES.find((l) => l.minXp > xpPoints) ?? null;
  return {
    league: reached.at(-1)?.name ?? null,
    xpPoints,
    rankInLeague: null,
    nextLeague: next ? { name: next.name, xpNeeded: next.minXp - xpPoints } : null,
    tasks: [
      { id: 'first_trade', title: 'Make a first paper trade', done: p.tradeRows > 0 },
      { id: 'first_resting_order', title: 'Place a limit or stop order', done: p.ordersPlaced > 0 },
      { id: 'first_decided_trade', title: 'Close a trade with a realized result', done: p.decidedTrades > 0 },
      { id: 'five_decided_trades', title: 'Reach 5 decided trades (Arena ranking)', done: p.decidedTrades >= 5 },
      { id: 'first_win', title: 'Close a trade in profit', done: p.wins > 0 },
    ],
  };
}
