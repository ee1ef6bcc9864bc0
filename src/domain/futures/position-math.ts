/**
 * Isolated mock-futures arithmetic (contract supplement 3.2, 3.3). Pure: prices, sizes and
 * the fee come in as arguments. Money amounts are rounded to 8 decimal places where they are
 * computed, so margins, fees and PnL post to the journal exactly as stored.
 */
import { MIN_TRADE_NOTIONAL_MUSD, futuresFee } from '../execution-model.js';
import { Decimal, roundMoney } from '../money.js';

export type FuturesSide = 'long' | 'short';

export const MIN_MARGIN_MUSD = 10;
export const MIN_LEVERAGE = 1;
export const MAX_LEVERAGE = 20;
/** Maintenance-margin rate reported on every position (ours: 0.5 % of notional). */
export const MAINTENANCE_MARGIN_RATE = new Decimal('0.005');

const money = roundMoney;

/** +1 for a long (gains when the price rises), −1 for a short. */
export const direction = (side: FuturesSide): number => (side === 'long' ? 1 : -1);

/**
 * The price at which the margin left after a move equals the maintenance margin:
 * long `entry × (1 − 1/leverage + mmr)`, short `entry × (1 + 1/leverage − mmr)`.
 */
export function liquidationPrice(side: FuturesSide, entry: Decimal, leverage: Decimal, mmr: Decimal = MAINTENANCE_MARGIN_RATE): Decimal {
  const move = new Decimal(1).div(leverage).minus(mmr);
  return side === 'long' ? entry.times(new Decimal(1).minus(move)) : entry.times(new Decimal(1).plus(move));
}

export interface OpenTerms {
  notional: Decimal;
  sizeCoin: Decimal;
  liquidationPrice: Decimal;
  maintenanceMarginRate: Decimal;
  /** Taker fee on the notional, paid from available cash on top of the margin. */
  fee: Decimal;
}

/** What opening `margin × leverage` at `entry` means: notional, size in coin, liquidation, fee. */
export function openTerms(side: FuturesSide, entry: Decimal, leverage: Decimal, margin: Decimal): OpenTerms {
  const notional = margin.times(leverage);
  return {
    notional,
    sizeCoin: notional.div(entry),
    liquidationPrice: liquidationPrice(side, entry, leverage),
    maintenanceMarginRate: MAINTENANCE_MARGIN_RATE,
    fee: money(futuresFee(notional)),
  };
}

/** Price PnL of `size` coins held since `entry`, valued at `mark` (fees not included). */
export function pricePnl(side: FuturesSide, entry: Decimal, mark: Decimal, size: Decimal): Decimal {
  return mark.minus(entry).times(size).times(direction(side));
}

/**
 * Unrealized price PnL of an open position: `pricePnl`, but never below −margin — isolated
 * margin is all it can lose (a gap through the liquidation price showed a larger loss until the
 * risk job settled it, then equity jumped back).
 */
export function unrealizedPnl(side: FuturesSide, entry: Decimal, mark: Decimal, size: Decimal, margin: Decimal): Decimal {
  return Decimal.max(margin.negated(), pricePnl(side, entry, mark, size));
}

/** Long: the mark is at or below the liquidation price; short: at or above. */
export function isThroughLiquidation(side: FuturesSide, mark: Decimal, liquidation: Decimal): boolean {
  return side === 'long' ? mark.lte(liquidation) : mark.gte(liquidation);
}

/** How far the mark is from liquidation, in percent of the mark (≤ 0 = at liquidation). */
export function liquidationDistancePct(side: FuturesSide, mark: Decimal, liquidation: Decimal): Decimal {
  const gap = side === 'long' ? mark.minus(liquidation) : liquidation.minus(mark);
  return gap.div(mark).times(100);
}

export interface PositionState {
  side: FuturesSide;
  leverage: Decimal;
  entryPrice: Decimal;
  margin: Decimal;
  sizeCoin: Decimal;
  /** Open fees not yet charged to a realized PnL (a close takes its share). */
  openFeesUnrealized: Decimal;
}

/**
 * Adding to a same-side position at the same leverage: sizes, margins and open fees add;
 * the entry is the size-weighted average; the liquidation price follows from it.
 */
export function addToPosition(current: PositionState, entry: Decimal, margin: Decimal): PositionState & { liquidationPrice: Decimal; fee: Decimal } {
  const added = openTerms(current.side, entry, current.leverage, margin);
  const sizeCoin = current.sizeCoin.plus(added.sizeCoin);
  const entryPrice = current.sizeCoin.times(current.entryPrice).plus(added.sizeCoin.times(entry)).div(sizeCoin);
  return {
    side: current.side,
    leverage: current.leverage,
    entryPrice,
    margin: current.margin.plus(margin),
    sizeCoin,
    openFeesUnrealized: current.openFeesUnrealized.plus(added.fee),
    liquidationPrice: liquidationPrice(current.side, entryPrice, current.leverage),
    fee: added.fee,
  };
}

export interface CloseSettlement {
  closedSize: Decimal;
  releasedMargin: Decimal;
  pricePnl: Decimal;
  closeFee: Decimal;
  /** The share of the open fee this close realizes. */
  openFeeShare: Decimal;
  /** Back to available: released margin + price PnL − close fee (never below 0). */
  cashBack: Decimal;
  /** Net of both fees: what the trade log records. */
  realizedPnl: Decimal;
  /** What stays open (fraction 1 → all zero). */
  remaining: { margin: Decimal; sizeCoin: Decimal; openFeesUnrealized: Decimal };
}

/**
 * Closing `fraction` of a position at `mark` (supplement 3.3): the closed size pays the
 * close fee on its notional at the mark; the released margin plus price PnL comes back.
 * The remainder keeps entry, leverage, triggers and liquidation price.
 */
export function closeSettlement(position: PositionState, fraction: Decimal, mark: Decimal): CloseSettlement {
  const whole = fraction.gte(1);
  const releasedMargin = whole ? position.margin : money(position.margin.times(fraction));
  const closedSize = whole ? position.sizeCoin : position.sizeCoin.times(fraction);
  const openFeeShare = whole ? position.openFeesUnrealized : money(position.openFeesUnrealized.times(fraction));
  const pnl = money(pricePnl(position.side, position.entryPrice, mark, closedSize));
  const closeFee = money(futuresFee(closedSize.times(mark)));
  // Isolated margin: a close can lose at most the margin it releases.
  const cashBack = Decimal.max(0, releasedMargin.plus(pnl).minus(closeFee));
  const realizedPnl = cashBack.minus(releasedMargin).minus(openFeeShare);
  return {
    closedSize,
    releasedMargin,
    pricePnl: pnl,
    closeFee,
    openFeeShare,
    cashBack,
    realizedPnl,
    remaining: {
      margin: position.margin.minus(releasedMargin),
      sizeCoin: whole ? new Decimal(0) : position.sizeCoin.minus(closedSize),
      openFeesUnrealized: position.openFeesUnrealized.minus(openFeeShare),
    },
  };
}

/** Which part of a partial close would be worth less than the minimum trade notional at `mark`, if either. */
export function partialCloseBelowMinimum(sizeCoin: Decimal, fraction: Decimal, mark: Decimal): 'closed' | 'remaining' | null {
  if (fraction.gte(1)) return null;
  const notional = sizeCoin.times(mark);
  if (notional.times(fraction).lessThan(MIN_TRADE_NOTIONAL_MUSD)) return 'closed';
  if (notional.times(new Decimal(1).minus(fraction)).lessThan(MIN_TRADE_NOTIONAL_MUSD)) return 'remaining';
  return null;
}

/**
 * A liquidation forfeits the whole margin; no exit fee. Realized PnL includes the open fees paid.
 * `pricePnl` is the mark move, as on a close: the margin lost is more (maintenance) or, through a gap, less.
 */
export function liquidationSettlement(position: PositionState, mark: Decimal): { forfeitedMargin: Decimal; realizedPnl: Decimal; pricePnl: Decimal } {
  return {
    forfeitedMargin: position.margin,
    realizedPnl: position.margin.plus(position.openFeesUnrealized).negated(),
    pricePnl: money(pricePnl(position.side, position.entryPrice, mark, position.sizeCoin)),
  };
}
