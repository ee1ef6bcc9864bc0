import { Decimal } from 'decimal.js';

export { Decimal };

/** USDT, coinId 825, is the cash coin of every paper book. */
export const CASH_COIN_ID = '825';
export const STARTING_CASH_MUSD = new Decimal(50_000);

export const CASH_BUCKETS = ['available', 'frozen', 'frozenPm', 'frozenFutures'] as const;
export type CashBucket = (typeof CASH_BUCKETS)[number];

export interface CashBalances {
  available: Decimal;
  frozen: Decimal;
  frozenPm: Decimal;
  frozenFutures: Decimal;
}

export function cashTotal(b: CashBalances): Decimal {
  return b.available.plus(b.frozen).plus(b.frozenPm).plus(b.frozenFutures);
}

/** Money at its stored precision: 8 decimal places, half to even. */
export const roundMoney = (d: Decimal): Decimal => d.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);

/**
 * An amount as an order takes it (a coin quantity, a futures margin, a PM stake): cut to the 8
 * decimal places balances are kept and shown at (toward zero: never more than asked). Finer
 * digits (a float `budget / price`) would leave amounts the wallet cannot show: a holding whose
 * shown balance could not be sold, a margin shown as other than the one frozen.
 */
export const orderAmount = (value: number): Decimal => new Decimal(value).toDecimalPlaces(8, Decimal.ROUND_DOWN);

/** Money goes on the wire as a plain JSON number, rounded once here (8 decimal places). */
export function toWire(value: Decimal | string | number): number {
  return roundMoney(new Decimal(value)).toNumber();
}

/** A share `n / total` on the wire like money (8 places, half to even); null over nothing. */
export const shareOf = (n: number, total: number): number | null => (total === 0 ? null : toWire(new Decimal(n).div(total)));

/**
 * A spot price on the wire: 8 decimal places, or 8 significant digits where that keeps more —
 * a coin quoted at 1e-9 mUSD went out as 0 (a fill a client could not rebuild).
 */
export function priceToWire(value: Decimal | string | number): number {
  const d = new Decimal(value);
  if (d.isZero()) return 0;
  return d.toDecimalPlaces(Math.max(8, 7 - d.e), Decimal.ROUND_HALF_EVEN).toNumber();
}

/**
 * A futures price on the wire (entry, mark, liquidation): 12 significant digits — they are
 * averages with slippage that a client compares with each other, and small coins trade far
 * below 1 mUSD.
 */
export function futuresPriceToWire(value: Decimal | string | number): number {
  return new Decimal(value).toSignificantDigits(12).toNumber();
}
