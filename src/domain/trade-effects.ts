/**
 * What a trade write changes, as plain data: the pure decision functions produce it, the
 * storage layer applies all of it in one statement (paper_trade_write). Rows this write
 * creates are referred to by kind, since their ids exist only once written.
 */
import type { CashBucket, Decimal } from './money.js';

export type CreatedRow = 'trade' | 'order' | 'position' | 'pm_position';
/** An id already known, or the id of a row this write creates. */
export type RowRef = string | { created: CreatedRow };

export interface CashPosting {
  bucket: CashBucket;
  amount: Decimal;
  reason: string;
  refType?: string;
  refId?: RowRef;
}

/** Coin units moving between a holding's buckets (and its average cost on buys). */
export interface CoinPosting {
  coinId: string;
  available?: Decimal;
  frozen?: Decimal;
  avgCostUsd?: Decimal;
  reason: string;
  refType?: string;
  refId?: RowRef;
  atMs: number;
}

/** One row of the shared trade log. */
export interface TradeRecord {
  venue: 'spot' | 'futures' | 'pm';
  side: string;
  coinId?: string | null;
  symbol?: string | null;
  market?: string | null;
  outcome?: string | null;
  realizedPnl: Decimal | null;
  closedAtMs: number;
  refType?: string;
  refId?: RowRef;
  detail: Record<string, unknown>;
}

export interface NewRestingOrder {
  coinId: string;
  symbol: string | null;
  side: 'buy' | 'sell';
  orderType: 'limit' | 'stop';
  quantity: Decimal;
  limitPrice: Decimal;
  stopPrice: Decimal | null;
  status: 'open' | 'triggered';
  frozenAmount: Decimal;
  idempotencyKey: string;
  atMs: number;
}

export interface RestingOrderChange {
  id: number;
  status: 'filled' | 'cancelled' | 'triggered';
  atMs: number;
  /** A fill points at the trade this write creates. */
  filledByTrade?: boolean;
}

/** A futures position's columns (numbers as exact decimal strings, like the table). */
export interface PositionRecord {
  id: number;
  keyId: number;
  walletId: number;
  coinId: string;
  symbol: string;
  coinName: string;
  side: 'long' | 'short';
  status: 'open' | 'closed' | 'liquidated';
  leverage: string;
  entryPrice: string;
  margin: string;
  sizeCoin: string;
  maintenanceMarginRate: string;
  liquidationPrice: string;
  openFeesUnrealized: string;
  stopLossPrice: string | null;
  takeProfitPrice: string | null;
  freshnessAtEntry: Record<string, unknown>;
  exitPrice: string | null;
  exitReason: 'user_close' | 'liquidation' | 'stop_loss' | 'take_profit' | null;
  realizedPnl: string | null;
  idempotencyKey: string | null;
  openedAt: Date;
  closedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type PositionPatch = Partial<Omit<PositionRecord, 'id' | 'keyId' | 'walletId' | 'coinId'>>;

export interface PositionEvent {
  /** The position's id, or the one this write opens. */
  positionId: number | { created: 'position' };
  type: 'open' | 'add' | 'reduce' | 'close' | 'liquidation' | 'stop_loss' | 'take_profit' | 'sl_tp_set';
  sizeDeltaCoin: string;
  markPrice: string | null;
  fillPrice: string | null;
  realizedPnl: string | null;
  marginDelta: string;
  fee: string;
  slippage: string;
  executionVersion: string | null;
  idempotencyKey: string | null;
  atMs: number;
}

export interface TradeEffects {
  cash?: CashPosting[];
  coins?: CoinPosting[];
  trade?: TradeRecord;
  newOrder?: NewRestingOrder;
  orderChange?: RestingOrderChange;
  newPosition?: Omit<PositionRecord, 'id'>;
  positionChange?: { id: number; patch: PositionPatch };
  positionEvents?: PositionEvent[];
  /** Other new rows by column name (PM positions and their decision records), in order. */
  rows?: { table: 'pm_positions' | 'arena_decisions'; row: Record<string, unknown>; as?: CreatedRow }[];
}
