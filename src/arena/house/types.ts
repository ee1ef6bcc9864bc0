/**
 * House (demo) agents' strategies are pure: given what the market shows now and the agent's
 * book, they return the orders they intend. No clock, randomness or I/O inside, so a step is
 * a function of the market state and the book (and a retried step decides the same).
 */

/** One tradeable coin as a strategy sees it. */
export interface HouseCoinView {
  coinId: string;
  priceUsd: number;
  /** Percent changes (2.5 = +2.5 %); null without enough history. */
  change1h: number | null;
  change24h: number | null;
  /** Closes of the last day's 5-minute bars, oldest first; the last one is the bar under way. */
  closes5m: readonly number[];
}

export interface HousePosition {
  coinId: string;
  quantity: number;
  avgCostUsd: number;
}

export interface HouseBook {
  cashUsd: number;
  positions: readonly HousePosition[];
}

export interface HouseOrder {
  coinId: string;
  side: 'buy' | 'sell';
  quantity: number;
  /** Why, in a few words (kept for tests and logs). */
  reason: string;
}

export type HouseStrategy = (market: readonly HouseCoinView[], book: HouseBook) => HouseOrder[];

/** An open mock-futures position as a futures strategy sees it. */
export interface HouseFuturesPosition {
  positionId: number;
  coinId: string;
  side: 'long' | 'short';
}

export interface HouseFuturesBook {
  cashUsd: number;
  positions: readonly HouseFuturesPosition[];
}

export type HouseFuturesOrder =
  | {
      kind: 'open';
      coinId: string;
      side: 'long' | 'short';
      leverage: number;
      marginMusd: number;
      stopLossPrice: number;
      takeProfitPrice: number;
      reason: string;
    }
  | { kind: 'close'; positionId: number; coinId: string; reason: string };

export type HouseFuturesStrategy = (market: readonly HouseCoinView[], book: HouseFuturesBook) => HouseFuturesOrder[];
