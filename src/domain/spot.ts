/**
 * Spot paper trading rules (contract §1, supplement 3.4), pure: prices, sizes and balances
 * come in as arguments; what to post comes out. The storage layer applies the result.
 */
import { MIN_TRADE_NOTIONAL_MUSD, spotLimitFill, spotMarketFill, type SpotFill } from './execution-model.js';
import { Decimal } from './money.js';

export type Side = 'buy' | 'sell';
export type RestingType = 'limit' | 'stop';
export type BlockReason = 'price_unavailable' | 'insufficient_usdt_balance' | 'insufficient_coin_balance' | 'wallet_not_found' | 'below_min_notional';

export interface Holding {
  available: Decimal;
  frozen: Decimal;
  avgCostUsd: Decimal;
}

export const EMPTY_HOLDING: Holding = { available: new Decimal(0), frozen: new Decimal(0), avgCostUsd: new Decimal(0) };

/**
 * Average cost after buying `quantity` for `costUsd` (notional plus fee): the buy's fee is part
 * of the cost basis, so a sale's realized PnL carries both fills' costs (contract §1 item 1:
 * "the cost is folded into realized PnL"; supplement 3.4 excluded it).
 */
export function reweightAvgCost(h: Holding, quantity: Decimal, costUsd: Decimal): Decimal {
  const held = h.available.plus(h.frozen);
  const total = held.plus(quantity);
  if (total.isZero()) return new Decimal(0);
  return h.avgCostUsd.times(held).plus(costUsd).div(total);
}

/** Realized PnL of selling `quantity` at `price`, net of the fee, against the average cost. */
export function sellPnl(avgCostUsd: Decimal, price: Decimal, quantity: Decimal, fee: Decimal): Decimal {
  return price.minus(avgCostUsd).times(quantity).minus(fee);
}

/** A market order: its fill, and whether the book can pay for it. */
export interface MarketDecision {
  fill: SpotFill;
  blockReasons: BlockReason[];
}

export function decideMarketOrder(
  side: Side,
  mid: Decimal,
  quantity: Decimal,
  rank: number | null,
  cashAvailable: Decimal,
  coinAvailable: Decimal,
): MarketDecision {
  const fill = spotMarketFill(side, mid, quantity, rank);
  const blockReasons: BlockReason[] = [];
  if (fill.notional.lessThan(MIN_TRADE_NOTIONAL_MUSD)) blockReasons.push('below_min_notional');
  if (side === 'buy' && cashAvailable.lessThan(fill.notional.plus(fill.fee))) blockReasons.push('insufficient_usdt_balance');
  if (side === 'sell' && coinAvailable.lessThan(quantity)) blockReasons.push('insufficient_coin_balance');
  return { fill, blockReasons };
}

/**
 * What a resting order freezes when placed: a buy freezes `limitPrice × quantity + fee` in
 * cash, so its fill at the limit price consumes exactly that; a sell freezes the coin units.
 */
export function restingFreeze(side: Side, limitPrice: Decimal, quantity: Decimal): Decimal {
  if (side === 'sell') return quantity;
  const { notional, fee } = spotLimitFill(limitPrice, quantity);
  return notional.plus(fee);
}

export interface RestingOrderState {
  side: Side;
  orderType: RestingType;
  status: 'open' | 'triggered';
  limitPrice: Decimal;
  stopPrice: Decimal | null;
}

export interface TradedRange {
  low: number;
  high: number;
}

/** Does a stop-limit's trigger fire at these traded prices? Buy: ≥ stop; sell: ≤ stop. */
export function stopTriggers(side: Side, stopPrice: Decimal, range: TradedRange): boolean {
  return side === 'buy' ? stopPrice.lessThanOrEqualTo(range.high) : stopPrice.greaterThanOrEqualTo(range.low);
}

/** Did the market trade through a limit? Buy: some price ≤ limit; sell: some price ≥ limit. */
export function limitCrosses(side: Side, limitPrice: Decimal, range: TradedRange): boolean {
  return side === 'buy' ? limitPrice.greaterThanOrEqualTo(range.low) : limitPrice.lessThanOrEqualTo(range.high);
}

/**
 * The matcher's verdict on one resting order for the prices traded since it last looked.
 * An open stop that fires becomes `trigger`; it is checked as a limit from the next window
 * on (within one window the order of prices is unknown, so it never fills on prices that
 * may have come before the trigger). A limit or triggered stop fills at its limit price.
 */
export function matchRestingOrder(order: RestingOrderState, range: TradedRange | null): 'fill' | 'trigger' | 'none' {
  if (range === null) return 'none';
  if (order.orderType === 'stop' && order.status === 'open') {
    return stopTriggers(order.side, order.stopPrice!, range) ? 'trigger' : 'none';
  }
  return limitCrosses(order.side, order.limitPrice, range) ? 'fill' : 'none';
}

/** Joins the traded range of a window with the latest traded price (either may be missing). */
export function widenRange(range: TradedRange | null, price: number | null): TradedRange | null {
  if (price === null) return range;
  if (range === null) return { low: price, high: price };
  return { low: Math.min(range.low, price), high: Math.max(range.high, price) };
}
