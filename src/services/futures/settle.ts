import {
  closeSettlement,
  isThroughLiquidation,
  liquidationSettlement,
  type FuturesSide,
} from '../../domain/futures/position-math.js';
import { Decimal, futuresPriceToWire, toWire } from '../../domain/money.js';
import type { CashPosting } from '../../storage/books-repo.js';
import type { FuturesPositionPatch, FuturesPositionRow, NewFuturesEvent } from '../../storage/futures-repo.js';
import { EXECUTION_VERSION } from '../../domain/execution-model.js';
import type { NewClosedTrade } from '../../storage/trades-repo.js';
import { positionState } from './view.js';

export type ExitReason = 'user_close' | 'stop_loss' | 'take_profit' | 'liquidation';

export interface SettleInput {
  /** A locked open row whose wallet is locked too. */
  row: FuturesPositionRow;
  reason: ExitReason;
  /** (0, 1]; ignored by liquidation and triggers (they close everything). */
  fraction: Decimal;
  mark: Decimal;
  nowMs: number;
  /** The close's idempotencyKey, kept on the position event. */
  idempotencyKey?: string | null;
}

/** Everything a settlement writes, computed without touching the database. */
export interface SettlementPlan {
  positionId: number;
  walletId: number;
  postings: CashPosting[];
  trade: NewClosedTrade;
  patch: FuturesPositionPatch;
  reason: ExitReason;
  event: NewFuturesEvent;
}

const REF = 'futures_position';

/**
 * The cash postings, the trade-log row (realized PnL net of fees) and the row change of a
 * close, trigger or liquidation. A user close whose mark is through liquidation is one.
 */
export function planSettlement(input: SettleInput): SettlementPlan {
  const { row, mark, nowMs } = input;
  const side = row.side as FuturesSide;
  const state = positionState(row);
  const refId = String(row.id);
  const prior = row.realizedPnl === null ? new Decimal(0) : new Decimal(row.realizedPnl);
  const now = new Date(nowMs);
  const liquidated = input.reason === 'liquidation' || isThroughLiquidation(side, mark, new Decimal(row.liquidationPrice));
  const trade = (realizedPnl: Decimal, detail: Record<string, unknown>): NewClosedTrade => ({
    keyId: row.keyId,
    walletId: row.walletId,
    venue: 'futures',
    side,
    coinId: row.coinId,
    symbol: row.symbol,
    realizedPnl,
    closedAtMs: nowMs,
    refType: REF,
    refId,
    detail,
  });

  const event = (e: Pick<NewFuturesEvent, 'type' | 'sizeDeltaCoin' | 'fillPrice' | 'realizedPnl' | 'marginDelta' | 'fee'>): NewFuturesEvent => ({
    positionId: row.id,
    keyId: row.keyId,
    markPrice: mark.toString(),
    slippage: '0',
    executionVersion: e.fillPrice === null ? null : EXECUTION_VERSION,
    idempotencyKey: input.idempotencyKey ?? null,
    createdAt: now,
    ...e,
  });

  if (liquidated) {
    const { forfeitedMargin, realizedPnl, pricePnl } = liquidationSettlement(state, mark);
    return {
      event: event({
        type: 'liquidation',
        sizeDeltaCoin: state.sizeCoin.negated().toString(),
        fillPrice: null,
        realizedPnl: realizedPnl.toString(),
        marginDelta: forfeitedMargin.negated().toString(),
        fee: '0',
      }),
      positionId: row.id,
      walletId: row.walletId,
      reason: 'liquidation',
      postings: [{ bucket: 'frozenFutures', amount: forfeitedMargin.negated(), reason: 'futures_liquidation', refType: REF, refId }],
      trade: trade(
        realizedPnl,
        tradeDetail(row, 'liquidation', mark, new Decimal(1), {
          sizeCoin: state.sizeCoin,
          marginReleased: new Decimal(0),
          marginForfeited: forfeitedMargin,
          pricePnl,
          openFee: state.openFeesUnrealized,
          closeFee: new Decimal(0),
        }),
      ),
      patch: {
        status: 'liquidated',
        exitPrice: mark.toString(),
        exitReason: 'liquidation',
        realizedPnl: prior.plus(realizedPnl).toString(),
        openFeesUnrealized: '0',
        closedAt: now,
        updatedAt: now,
      },
    };
  }

  const fraction = input.reason === 'user_close' ? input.fraction : new Decimal(1);
  const s = closeSettlement(state, fraction, mark);
  const whole = fraction.gte(1);
  const postings: CashPosting[] = [
    { bucket: 'frozenFutures', amount: s.releasedMargin.negated(), reason: 'futures_margin_release', refType: REF, refId },
    { bucket: 'available', amount: s.releasedMargin, reason: 'futures_margin_release', refType: REF, refId },
    // price PnL as paid out (a loss is capped at the released margin), then the close fee
    { bucket: 'available', amount: s.cashBack.minus(s.releasedMargin).plus(s.closeFee), reason: 'futures_pnl', refType: REF, refId },
    { bucket: 'available', amount: s.closeFee.negated(), reason: 'futures_fee', refType: REF, refId },
  ];
  return {
    event: event({
      type: !whole ? 'reduce' : input.reason === 'user_close' ? 'close' : input.reason,
      sizeDeltaCoin: s.closedSize.negated().toString(),
      fillPrice: mark.toString(),
      realizedPnl: s.realizedPnl.toString(),
      marginDelta: s.releasedMargin.negated().toString(),
      fee: s.closeFee.toString(),
    }),
    positionId: row.id,
    walletId: row.walletId,
    reason: input.reason,
    postings: postings.filter((p) => !p.amount.isZero()),
    trade: trade(
      s.realizedPnl,
      tradeDetail(row, input.reason, mark, fraction, {
        sizeCoin: s.closedSize,
        marginReleased: s.releasedMargin,
        marginForfeited: new Decimal(0),
        pricePnl: s.pricePnl,
        openFee: s.openFeeShare,
        closeFee: s.closeFee,
      }),
    ),
    patch: whole
      ? {
          status: 'closed',
          exitPrice: mark.toString(),
          exitReason: input.reason,
          realizedPnl: prior.plus(s.realizedPnl).toString(),
          openFeesUnrealized: '0',
          closedAt: now,
          updatedAt: now,
        }
      : {
          margin: s.remaining.margin.toString(),
          sizeCoin: s.remaining.sizeCoin.toString(),
          openFeesUnrealized: s.remaining.openFeesUnrealized.toString(),
          realizedPnl: prior.plus(s.realizedPnl).toString(),
          updatedAt: now,
        },
  };
}

function tradeDetail(
  row: FuturesPositionRow,
  exitReason: ExitReason,
  mark: Decimal,
  fraction: Decimal,
  parts: { sizeCoin: Decimal; marginReleased: Decimal; marginForfeited: Decimal; pricePnl: Decimal; openFee: Decimal; closeFee: Decimal },
): Record<string, unknown> {
  return {
    positionId: row.id,
    exitReason,
    fraction: fraction.toNumber(),
    leverage: Number(row.leverage),
    // prices and amounts as the position and every other mUSD figure are sent
    entryPrice: futuresPriceToWire(row.entryPrice),
    exitPrice: futuresPriceToWire(mark),
    sizeCoin: toWire(parts.sizeCoin),
    marginReleasedMusd: toWire(parts.marginReleased),
    marginForfeitedMusd: toWire(parts.marginForfeited),
    pricePnlMusd: toWire(parts.pricePnl),
    openFeeMusd: toWire(parts.openFee),
    closeFeeMusd: toWire(parts.closeFee),
  };
}
