import { addToPosition, isThroughLiquidation, openTerms, type FuturesSide } from '../../domain/futures/position-math.js';
import { triggerProblems } from '../../domain/futures/triggers.js';
import { Decimal } from '../../domain/money.js';
import type { CoinRef } from '../../domain/coin-ref.js';
import { blocked } from '../../http/errors.js';
import type { MarketFeed } from '../../marketdata/feed.js';
import { lockWallet, postCash } from '../../storage/books-repo.js';
import type { Tx } from '../../storage/db.js';
import { insertFuturesEvents, insertPosition, lockOpenPosition, updatePosition, type FuturesPositionRow } from '../../storage/futures-repo.js';
import { EXECUTION_VERSION } from '../../domain/execution-model.js';
import { readMark } from './mark.js';
import { positionState } from './view.js';

export interface OpenRequest {
  keyId: number;
  coin: CoinRef;
  side: FuturesSide;
  leverage: number;
  marginMusd: number;
  stopLossPrice?: number | null;
  takeProfitPrice?: number | null;
  idempotencyKey?: string | null;
}

export interface Opened {
  /** 201 new position, 200 added to the open one. */
  statusCode: 201 | 200;
  row: FuturesPositionRow;
  mark: Decimal;
}

const REF = 'futures_position';
const dec = (v: number | null | undefined): Decimal | null => (v === null || v === undefined ? null : new Decimal(v));

/**
 * Opens or adds to the key's one position on a coin, inside the caller's transaction (the
 * idempotency record commits with it). Every refusal is a 422 `futures_entry_blocked`.
 */
export async function openPosition(tx: Tx, market: MarketFeed, nowMs: number, req: OpenRequest): Promise<Opened> {
  const refuse = (reasons: string[]) =>
    blocked(422, 'futures_entry_blocked', reasons, `the futures entry was refused: ${reasons.join(', ')}`);
  const read = readMark(market, req.coin.coinId, nowMs);
  if (read.problem || !read.mark) throw refuse([read.problem ?? 'price_unavailable']);
  const mark = read.mark;

  const wallet = await lockWallet(tx, req.keyId);
  const existing = await lockOpenPosition(tx, req.keyId, req.coin.coinId);
  const leverage = new Decimal(req.leverage);
  const margin = new Decimal(req.marginMusd);
  const stopLoss = dec(req.stopLossPrice);
  const takeProfit = dec(req.takeProfitPrice);
  const reasons: string[] = [];
  const terms = openTerms(req.side, mark, leverage, margin);

  if (existing) {
    if (existing.side !== req.side) reasons.push('opposite_side_open');
    if (!new Decimal(existing.leverage).eq(leverage)) reasons.push('leverage_mismatch');
    if (stopLoss || takeProfit) reasons.push('sl_tp_not_allowed_on_add');
    // an add must not average a position the risk job is about to liquidate back to life
    if (isThroughLiquidation(existing.side as FuturesSide, mark, new Decimal(existing.liquidationPrice))) {
      reasons.push('position_at_liquidation');
    }
  } else {
    reasons.push(...triggerProblems(req.side, mark, terms.liquidationPrice, stopLoss, takeProfit));
  }
  if (margin.plus(terms.fee).gt(wallet.available)) reasons.push('insufficient_usdt_balance');
  if (reasons.length > 0) throw refuse(reasons);

  const now = new Date(nowMs);
  let row: FuturesPositionRow;
  if (existing) {
    const merged = addToPosition(positionState(existing), mark, margin);
    row = await updatePosition(tx, existing.id, {
      entryPrice: merged.entryPrice.toString(),
      margin: merged.margin.toString(),
      sizeCoin: merged.sizeCoin.toString(),
      openFeesUnrealized: merged.openFeesUnrealized.toString(),
      liquidationPrice: merged.liquidationPrice.toString(),
      updatedAt: now,
    });
  } else {
    row = await insertPosition(tx, {
      keyId: req.keyId,
      walletId: wallet.id,
      coinId: req.coin.coinId,
      symbol: req.coin.symbol,
      coinName: req.coin.name,
      side: req.side,
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
      freshnessAtEntry: { ...read.freshness },
      idempotencyKey: req.idempotencyKey ?? null,
      openedAt: now,
      createdAt: now,
      updatedAt: now,
    });
  }
  const refId = String(row.id);
  await postCash(tx, wallet.id, [
    { bucket: 'available', amount: margin.negated(), reason: 'futures_margin', refType: REF, refId },
    { bucket: 'frozenFutures', amount: margin, reason: 'futures_margin', refType: REF, refId },
    ...(terms.fee.isZero() ? [] : [{ bucket: 'available' as const, amount: terms.fee.negated(), reason: 'futures_fee', refType: REF, refId }]),
  ]);
  await insertFuturesEvents(tx, [
    {
      positionId: row.id,
      keyId: req.keyId,
      type: existing ? 'add' : 'open',
      sizeDeltaCoin: terms.sizeCoin.toString(),
      markPrice: mark.toString(),
      fillPrice: mark.toString(),
      realizedPnl: null,
      marginDelta: margin.toString(),
      fee: terms.fee.toString(),
      slippage: '0',
      executionVersion: EXECUTION_VERSION,
      idempotencyKey: req.idempotencyKey ?? null,
      createdAt: now,
    },
  ]);
  return { statusCode: existing ? 200 : 201, row, mark };
}
