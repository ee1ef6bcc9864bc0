/**
 * Stop-loss / take-profit validation and firing (contract supplement 1.6, 3.2). Pure.
 * A valid long has `liquidation < SL < mark < TP`; a valid short `TP < mark < SL < liquidation`.
 */
import type { Decimal } from '../money.js';
import { isThroughLiquidation, type FuturesSide } from './position-math.js';

export type TriggerReason =
  | 'stop_loss_not_below_mark'
  | 'stop_loss_not_above_liquidation'
  | 'take_profit_not_above_mark'
  | 'stop_loss_not_above_mark'
  | 'stop_loss_not_below_liquidation'
  | 'take_profit_not_below_mark';

/** Every reason the triggers are dead on arrival; empty = valid. Null triggers are not checked. */
export function triggerProblems(
  side: FuturesSide,
  mark: Decimal,
  liquidation: Decimal,
  stopLoss: Decimal | null,
  takeProfit: Decimal | null,
): TriggerReason[] {
  const reasons: TriggerReason[] = [];
  if (side === 'long') {
    if (stopLoss && !stopLoss.lt(mark)) reasons.push('stop_loss_not_below_mark');
    if (stopLoss && !stopLoss.gt(liquidation)) reasons.push('stop_loss_not_above_liquidation');
    if (takeProfit && !takeProfit.gt(mark)) reasons.push('take_profit_not_above_mark');
  } else {
    if (stopLoss && !stopLoss.gt(mark)) reasons.push('stop_loss_not_above_mark');
    if (stopLoss && !stopLoss.lt(liquidation)) reasons.push('stop_loss_not_below_liquidation');
    if (takeProfit && !takeProfit.lt(mark)) reasons.push('take_profit_not_below_mark');
  }
  return reasons;
}

export type ExitTrigger = 'liquidation' | 'stop_loss' | 'take_profit';

/** What fires at this mark, in the risk job's order: liquidation, then stop-loss, then take-profit. */
export function firedTrigger(
  side: FuturesSide,
  mark: Decimal,
  liquidation: Decimal,
  stopLoss: Decimal | null,
  takeProfit: Decimal | null,
): ExitTrigger | null {
  if (isThroughLiquidation(side, mark, liquidation)) return 'liquidation';
  const long = side === 'long';
  if (stopLoss && (long ? mark.lte(stopLoss) : mark.gte(stopLoss))) return 'stop_loss';
  if (takeProfit && (long ? mark.gte(takeProfit) : mark.lte(takeProfit))) return 'take_profit';
  return null;
}
