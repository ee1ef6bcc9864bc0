/**
 * Plausibility of a polled live price before anything trades on it. An aggregator can publish a
 * wrong print for a poll or a few (a decimal shift, a stale edge cache, 1e308); taken at once, it
 * filled orders, liquidated positions and stayed in the candles. Pure: the caller keeps the state.
 */

/** A one-poll move beyond ×1.25 or ÷1.25 is held until the next poll confirms it. */
export const MAX_UNCONFIRMED_MOVE = 0.25;
/** The confirming poll must lie within 5 % of the held price. */
export const CONFIRM_TOLERANCE = 0.05;
/** No coin is worth more than this many USD (BTC would need a thousandfold rise). */
export const MAX_PLAUSIBLE_PRICE_USD = 1e8;

export interface PriceGuardState {
  /** The last price taken (null before the first). */
  last: number | null;
  /** A large move seen once, waiting for a second poll to confirm it. */
  held: number | null;
}

export type PriceGuardDecision =
  | { take: true; state: PriceGuardState; confirmed: boolean }
  | { take: false; state: PriceGuardState; reason: 'implausible' | 'unconfirmed_move' };

const within = (a: number, b: number, tolerance: number) => a / b <= 1 + tolerance && b / a <= 1 + tolerance;

export function guardPrice(state: PriceGuardState, price: number): PriceGuardDecision {
  if (!Number.isFinite(price) || price <= 0 || price > MAX_PLAUSIBLE_PRICE_USD) return { take: false, state, reason: 'implausible' };
  if (state.last === null || within(price, state.last, MAX_UNCONFIRMED_MOVE)) return { take: true, state: { last: price, held: null }, confirmed: false };
  if (state.held !== null && within(price, state.held, CONFIRM_TOLERANCE)) return { take: true, state: { last: price, held: null }, confirmed: true };
  return { take: false, state: { last: state.last, held: price }, reason: 'unconfirmed_move' };
}
