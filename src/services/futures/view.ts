import { isThroughLiquidation, liquidationDistancePct, unrealizedPnl, type FuturesSide } from '../../domain/futures/position-math.js';
import type { Freshness } from '../../domain/freshness.js';
export { positionState } from '../../domain/futures/decisions.js';
import { Decimal, futuresPriceToWire as price, toWire } from '../../domain/money.js';
import type { FuturesPositionRow } from '../../storage/futures-repo.js';


const num = (v: string | null): number | null => (v === null ? null : toWire(v));
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Live valuation of an open row at a fresh mark (supplement 2.4); all null without one. */
export function liveMark(row: FuturesPositionRow, mark: Decimal | null) {
  if (row.status !== 'open' || mark === null) {
    return { markPrice: null, unrealizedPnlMusd: null, liquidationDistancePct: null, atLiquidation: null };
  }
  const side = row.side as FuturesSide;
  const liq = new Decimal(row.liquidationPrice);
  return {
    markPrice: price(mark),
    unrealizedPnlMusd: toWire(unrealizedPnl(side, new Decimal(row.entryPrice), mark, new Decimal(row.sizeCoin), new Decimal(row.margin))),
    liquidationDistancePct: liquidationDistancePct(side, mark, liq).toDecimalPlaces(4).toNumber(),
    atLiquidation: isThroughLiquidation(side, mark, liq),
  };
}

/** The FuturesPosition record of supplement 2.4 (funding fields omitted: funding is not modeled). */
export function positionView(row: FuturesPositionRow, mark: Decimal | null = null) {
  const margin = new Decimal(row.margin);
  return {
    id: row.id,
    status: row.status,
    coin: { ucid: row.coinId, symbol: row.symbol, name: row.coinName },
    side: row.side,
    leverage: Number(row.leverage),
    entryPrice: price(row.entryPrice),
    marginMusd: toWire(margin),
    notionalMusd: toWire(margin.times(row.leverage)),
    sizeCoin: toWire(row.sizeCoin),
    maintenanceMarginRate: Number(row.maintenanceMarginRate),
    liquidationPrice: price(row.liquidationPrice),
    // Stored as the Freshness record the open read (jsonb).
    freshnessAtEntry: row.freshnessAtEntry as unknown as Freshness,
    stopLossPrice: row.stopLossPrice === null ? null : price(row.stopLossPrice),
    takeProfitPrice: row.takeProfitPrice === null ? null : price(row.takeProfitPrice),
    exitPrice: row.exitPrice === null ? null : price(row.exitPrice),
    exitReason: row.exitReason,
    realizedPnlMusd: num(row.realizedPnl),
    fillModel: null,
    openedAt: iso(row.openedAt),
    closedAt: iso(row.closedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...liveMark(row, mark),
  };
}

export type PositionView = ReturnType<typeof positionView>;
