/**
 * Futures write decisions, pure (issue 11): from the book and position as read and the mark
 * seen now, what an open / add or a stop-loss / take-profit change does. Refusals are block
 * reasons; otherwise the resulting row and the effects to write.
 */
import { EXECUTION_VERSION } from '../execution-model.js';
import { Decimal } from '../money.js';
import type { PositionEvent, PositionPatch, PositionRecord, TradeEffects } from '../trade-effects.js';
import { addToPosition, isThroughLiquidation, openTerms, type FuturesSide, type PositionState } from './position-math.js';
import { triggerProblems } from './triggers.js';

const REF = 'futures_position';

/** The fields of an open position an add is decided on (the quote reads just these). */
export type AddTarget = Pick<
  PositionRecord,
  'side' | 'leverage' | 'entryPrice' | 'margin' | 'sizeCoin' | 'openFeesUnrealized' | 'liquidationPrice' | 'stopLossPrice' | 'takeProfitPrice'
>;

export function positionState(row: AddTarget): PositionState {
  return {
    side: row.side,
    leverage: new Decimal(row.leverage),
    entryPrice: new Decimal(row.entryPrice),
    margin: new Decimal(row.margin),
    sizeCoin: new Decimal(row.sizeCoin),
    openFeesUnrealized: new Decimal(row.openFeesUnrealized),
  };
}

const optionalPrice = (price: string | null): Decimal | null => (price === null ? null : new Decimal(price));

/**
 * Why adding `margin` at `mark` to the open position is refused (supplement 3.3); empty = it may.
 * The add keeps the triggers but moves the liquidation price, so a stop-loss the new price
 * would pass could never fire: the dead-trigger codes (1.6) refuse that add.
 */
export function addBlockReasons(existing: AddTarget, side: FuturesSide, leverage: Decimal, mark: Decimal | null, margin: Decimal): string[] {
  const reasons: string[] = [];
  if (existing.side !== side) reasons.push('opposite_side_open');
  if (!new Decimal(existing.leverage).eq(leverage)) reasons.push('leverage_mismatch');
  // without a mark (the quote reports price_unavailable / price_stale) only side and leverage are judged
  if (reasons.length > 0 || !mark) return reasons;
  // an add must not average a position the risk job is about to liquidate back to life
  if (isThroughLiquidation(existing.side, mark, new Decimal(existing.liquidationPrice))) return ['position_at_liquidation'];
  const merged = addToPosition(positionState(existing), mark, margin);
  return triggerProblems(side, mark, merged.liquidationPrice, optionalPrice(existing.stopLossPrice), optionalPrice(existing.takeProfitPrice));
}

export interface OpenIntent {
  keyId: number;
  walletId: number;
  coin: { coinId: string; symbol: string; name: string };
  side: FuturesSide;
  leverage: Decimal;
  margin: Decimal;
  stopLoss: Decimal | null;
  takeProfit: Decimal | null;
  idempotencyKey: string | null;
  mark: Decimal;
  freshness: Record<string, unknown>;
  nowMs: number;
}

export type OpenDecision =
  | { kind: 'refused'; blockReasons: string[] }
  | { kind: 'opened'; added: boolean; row: Omit<PositionRecord, 'id'> & { id: number | null }; effects: TradeEffects };

/** Opens the key's one position on a coin, or adds to the open same-side one at the same leverage. */
export function decideOpen(intent: OpenIntent, cashAvailable: Decimal, existing: PositionRecord | null): OpenDecision {
  const { mark, margin, leverage, stopLoss, takeProfit, side } = intent;
  const terms = openTerms(side, mark, leverage, margin);
  const reasons: string[] = [];
  if (existing) {
    reasons.push(...addBlockReasons(existing, side, leverage, mark, margin));
    if (stopLoss || takeProfit) reasons.push('sl_tp_not_allowed_on_add');
  } else {
    reasons.push(...triggerProblems(side, mark, terms.liquidationPrice, stopLoss, takeProfit));
  }
  if (margin.plus(terms.fee).gt(cashAvailable)) reasons.push('insufficient_usdt_balance');
  if (reasons.length > 0) return { kind: 'refused', blockReasons: reasons };

  const now = new Date(intent.nowMs);
  const refId = existing ? String(existing.id) : { created: 'position' as const };
  const effects: TradeEffects = {
    cash: [
      { bucket: 'available', amount: margin.negated(), reason: 'futures_margin', refType: REF, refId },
      { bucket: 'frozenFutures', amount: margin, reason: 'futures_margin', refType: REF, refId },
      ...(terms.fee.isZero() ? [] : [{ bucket: 'available' as const, amount: terms.fee.negated(), reason: 'futures_fee', refType: REF, refId }]),
    ],
    positionEvents: [
      {
        positionId: existing ? existing.id : { created: 'position' },
        type: existing ? 'add' : 'open',
        sizeDeltaCoin: terms.sizeCoin.toString(),
        markPrice: mark.toString(),
        fillPrice: mark.toString(),
        realizedPnl: null,
        marginDelta: margin.toString(),
        fee: terms.fee.toString(),
        slippage: '0',
        executionVersion: EXECUTION_VERSION,
        idempotencyKey: intent.idempotencyKey,
        atMs: intent.nowMs,
      },
    ],
  };
  if (existing) {
    const merged = addToPosition(positionState(existing), mark, margin);
    const patch: PositionPatch = {
      entryPrice: merged.entryPrice.toString(),
      margin: merged.margin.toString(),
      sizeCoin: merged.sizeCoin.toString(),
      openFeesUnrealized: merged.openFeesUnrealized.toString(),
      liquidationPrice: merged.liquidationPrice.toString(),
      updatedAt: now,
    };
    return { kind: 'opened', added: true, row: { ...existing, ...patch }, effects: { ...effects, positionChange: { id: existing.id, patch } } };
  }
  const row: Omit<PositionRecord, 'id'> = {
    keyId: intent.keyId,
    walletId: intent.walletId,
    coinId: intent.coin.coinId,
    symbol: intent.coin.symbol,
    coinName: intent.coin.name,
    side,
    status: 'open',
    leverage: leverage.toString(),
    entryPrice: mark.toString(),
    margin: margin.toString(),
    sizeCoin: terms.sizeCoin.toString(),
    maintenanceMarginRate: terms.maintenanceMarginRate.toString(),
    liquidationPrice: terms.liquidationPrice.toString(),
    openFeesUnrealized: terms.fee.toString(),
    stopLossPrice: stopLoss?.toString() ?? null,
    takeProfitPrice: takeProfit?.toString() ?? null,
    freshnessAtEntry: intent.freshness,
    exitPrice: null,
    exitReason: null,
    realizedPnl: null,
    idempotencyKey: intent.idempotencyKey,
    openedAt: now,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return { kind: 'opened', added: false, row: { ...row, id: null }, effects: { ...effects, newPosition: row } };
}

export interface TriggerChange {
  /** number sets, null clears, undefined keeps. */
  stopLossPrice?: number | null;
  takeProfitPrice?: number | null;
}

/**
 * Sets or clears an open position's triggers. Prices being set are checked against the mark
 * (null when there is no fresh one) and the liquidation price. `unchanged` when nothing is asked.
 */
export function decideTriggers(
  row: PositionRecord,
  change: TriggerChange,
  mark: Decimal | null,
  nowMs: number,
): { kind: 'unchanged' } | { kind: 'no_mark' } | { kind: 'refused'; blockReasons: string[] } | { kind: 'set'; row: PositionRecord; effects: TradeEffects } {
  if (change.stopLossPrice === undefined && change.takeProfitPrice === undefined) return { kind: 'unchanged' };
  if (typeof change.stopLossPrice === 'number' || typeof change.takeProfitPrice === 'number') {
    if (!mark) return { kind: 'no_mark' };
    const sl = typeof change.stopLossPrice === 'number' ? new Decimal(change.stopLossPrice) : null;
    const tp = typeof change.takeProfitPrice === 'number' ? new Decimal(change.takeProfitPrice) : null;
    const reasons = triggerProblems(row.side, mark, new Decimal(row.liquidationPrice), sl, tp);
    if (reasons.length > 0) return { kind: 'refused', blockReasons: reasons };
  }
  const patch: PositionPatch = { updatedAt: new Date(nowMs) };
  if (change.stopLossPrice !== undefined) patch.stopLossPrice = change.stopLossPrice === null ? null : String(change.stopLossPrice);
  if (change.takeProfitPrice !== undefined) patch.takeProfitPrice = change.takeProfitPrice === null ? null : String(change.takeProfitPrice);
  const event: PositionEvent = {
    positionId: row.id,
    type: 'sl_tp_set',
    sizeDeltaCoin: '0',
    markPrice: mark ? mark.toString() : null,
    fillPrice: null,
    realizedPnl: null,
    marginDelta: '0',
    fee: '0',
    slippage: '0',
    executionVersion: null,
    idempotencyKey: null,
    atMs: nowMs,
  };
  return { kind: 'set', row: { ...row, ...patch }, effects: { positionChange: { id: row.id, patch }, positionEvents: [event] } };
}
