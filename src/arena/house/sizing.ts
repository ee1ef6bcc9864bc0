import type { HouseBook, HouseCoinView, HouseOrder, HousePosition } from './types.js';

/** At most this many coins held at once. */
export const HOUSE_MAX_POSITIONS = 4;
/** A new position takes at most this share of equity … */
export const HOUSE_POSITION_EQUITY_SHARE = 0.2;
/** … and leaves this share of cash unspent (fees, spread and slippage come on top of notional). */
export const HOUSE_CASH_BUFFER = 0.02;
/** Orders smaller than this (mUSD notional) are not worth their fee. */
export const HOUSE_MIN_NOTIONAL = 100;

export function equityOf(market: readonly HouseCoinView[], book: HouseBook): number {
  const prices = new Map(market.map((c) => [c.coinId, c.priceUsd]));
  return book.positions.reduce((sum, p) => sum + p.quantity * (prices.get(p.coinId) ?? p.avgCostUsd), book.cashUsd);
}

/** Units for a notional, rounded down to 6 significant digits (never more than the budget). */
export function unitsFor(notional: number, priceUsd: number): number {
  if (!(notional > 0) || !(priceUsd > 0)) return 0;
  const raw = notional / priceUsd;
  const step = 10 ** (Math.floor(Math.log10(raw)) - 5);
  return Number((Math.floor(raw / step) * step).toPrecision(6));
}

export const sellAll = (p: HousePosition, reason: string): HouseOrder => ({ coinId: p.coinId, side: 'sell', quantity: p.quantity, reason });

/**
 * Buys for the ranked candidates while slots and cash last. Exits are applied first (their
 * proceeds are not counted: cash arrives only when they fill), so sizing never overdraws.
 */
export function entries(
  ranked: readonly HouseCoinView[],
  market: readonly HouseCoinView[],
  book: HouseBook,
  heldAfterExits: number,
  reason: (c: HouseCoinView) => string,
): HouseOrder[] {
  const orders: HouseOrder[] = [];
  const equity = equityOf(market, book);
  let cash = book.cashUsd * (1 - HOUSE_CASH_BUFFER);
  let slots = HOUSE_MAX_POSITIONS - heldAfterExits;
  for (const coin of ranked) {
    if (slots <= 0) break;
    const notional = Math.min(equity * HOUSE_POSITION_EQUITY_SHARE, cash);
    if (notional < HOUSE_MIN_NOTIONAL) break;
    const quantity = unitsFor(notional, coin.priceUsd);
    if (quantity <= 0) continue;
    orders.push({ coinId: coin.coinId, side: 'buy', quantity, reason: reason(coin) });
    cash -= quantity * coin.priceUsd;
    slots -= 1;
  }
  return orders;
}
