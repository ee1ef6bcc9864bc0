/**
 * The two statements of a trade write (paper_book_read, paper_trade_write: migrations 0011, 0021, 0022, 0023, 0024, 0028):
 * readBook gathers the book and every row a decision needs in one round trip, writeTrade
 * applies a decision's effects in one. Rows read carry a version (md5 of the row), which
 * the write compares under the book's lock: a change in between answers `stale`.
 */
import { sql } from 'drizzle-orm';
import { Decimal, STARTING_CASH_MUSD } from '../domain/money.js';
import type { Holding } from '../domain/spot.js';
import type { CreatedRow, PositionEvent, PositionPatch, PositionRecord, RowRef, TradeEffects } from '../domain/trade-effects.js';
import type { Wallet } from './books-repo.js';
import { queryRows, type Queryable } from './db.js';
import { pmMarketFromJson, type ClusterMember, type PmMarketRow } from './pm-repo.js';
import type { SpotOrderRow } from './spot-orders-repo.js';

export interface BookReadRequest {
  keyId: number;
  /** Lock the book for the rest of the caller's transaction. */
  lock?: boolean;
  coinId?: string;
  idempotencyKey?: string;
  spotOrderId?: number;
  positionId?: number;
  openPositionCoinId?: string;
  /** A PM market (source + slug) read with the book: PM open decides from it. */
  pmMarket?: { source: string; slug: string };
}

export interface StoredIdempotency {
  route: string;
  requestHash: string;
  statusCode: number | null;
  response: Record<string, unknown> | null;
}

type Versioned<T> = T & { version: string };

export interface BookSnapshot {
  wallet: Versioned<Wallet>;
  /** Present when coinId was asked; version null = no row yet. */
  holding?: Holding & { coinId: string; version: string | null };
  idempotency?: StoredIdempotency | null;
  spotOrder?: Versioned<SpotOrderRow> | null;
  position?: Versioned<PositionRecord> | null;
  /** Present when pmMarket was asked; null = no such market. */
  pmMarket?: PmMarketRow | null;
  /** With pmMarket: the voting members of its cross-venue cluster, itself included (empty outside one). */
  pmCluster?: ClusterMember[];
}

type Json = Record<string, unknown>;
const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const date = (v: unknown): Date => new Date(String(v));
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(String(v)));

function toSpotOrder(r: Json): Versioned<SpotOrderRow> {
  return {
    id: Number(r.id),
    keyId: Number(r.key_id),
    walletId: Number(r.wallet_id),
    coinId: str(r.coin_id),
    symbol: strOrNull(r.symbol),
    side: r.side as 'buy' | 'sell',
    orderType: r.order_type as 'limit' | 'stop',
    quantity: str(r.quantity),
    limitPrice: str(r.limit_price),
    stopPrice: strOrNull(r.stop_price),
    status: r.status as SpotOrderRow['status'],
    frozenAmount: str(r.frozen_amount),
    idempotencyKey: strOrNull(r.idempotency_key),
    checkedUntil: date(r.checked_until),
    triggeredAt: dateOrNull(r.triggered_at),
    fillTradeId: r.fill_trade_id === null ? null : Number(r.fill_trade_id),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    closedAt: dateOrNull(r.closed_at),
    version: str(r.version),
  };
}

function toPosition(r: Json): Versioned<PositionRecord> {
  return {
    id: Number(r.id),
    keyId: Number(r.key_id),
    walletId: Number(r.wallet_id),
    coinId: str(r.coin_id),
    symbol: str(r.symbol),
    coinName: str(r.coin_name),
    side: r.side as PositionRecord['side'],
    status: r.status as PositionRecord['status'],
    leverage: str(r.leverage),
    entryPrice: str(r.entry_price),
    margin: str(r.margin),
    sizeCoin: str(r.size_coin),
    maintenanceMarginRate: str(r.maintenance_margin_rate),
    liquidationPrice: str(r.liquidation_price),
    openFeesUnrealized: str(r.open_fees_unrealized),
    stopLossPrice: strOrNull(r.stop_loss_price),
    takeProfitPrice: strOrNull(r.take_profit_price),
    freshnessAtEntry: r.freshness_at_entry as Record<string, unknown>,
    exitPrice: strOrNull(r.exit_price),
    exitReason: (r.exit_reason ?? null) as PositionRecord['exitReason'],
    realizedPnl: strOrNull(r.realized_pnl),
    idempotencyKey: strOrNull(r.idempotency_key),
    openedAt: date(r.opened_at),
    closedAt: dateOrNull(r.closed_at),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    version: str(r.version),
  };
}

/** One round trip: the key's book (created and funded on first use) and the rows asked for. */
export async function readBook(db: Queryable, req: BookReadRequest): Promise<BookSnapshot> {
  const json = JSON.stringify({ ...req, startingCash: STARTING_CASH_MUSD.toString() });
  const [row] = await queryRows<{ r: Json }>(db, sql`select paper_book_read(${json}::jsonb) as r`);
  const r = row!.r;
  const w = r.wallet as Json;
  const snapshot: BookSnapshot = {
    wallet: {
      id: Number(w.id),
      keyId: Number(w.key_id),
      available: new Decimal(str(w.cash_available)),
      frozen: new Decimal(str(w.cash_frozen)),
      frozenPm: new Decimal(str(w.cash_frozen_pm)),
      frozenFutures: new Decimal(str(w.cash_frozen_futures)),
      version: str(w.version),
    },
  };
  if (req.coinId !== undefined) {
    const h = r.holding as Json | null;
    snapshot.holding = h
      ? { coinId: req.coinId, available: new Decimal(str(h.available)), frozen: new Decimal(str(h.frozen)), avgCostUsd: new Decimal(str(h.avg_cost_usd)), version: str(h.version) }
      : { coinId: req.coinId, available: new Decimal(0), frozen: new Decimal(0), avgCostUsd: new Decimal(0), version: null };
  }
  if (req.idempotencyKey !== undefined) snapshot.idempotency = (r.idempotency as StoredIdempotency | null) ?? null;
  if (req.spotOrderId !== undefined) snapshot.spotOrder = r.spotOrder ? toSpotOrder(r.spotOrder as Json) : null;
  if (req.positionId !== undefined || req.openPositionCoinId !== undefined) {
    snapshot.position = r.position ? toPosition(r.position as Json) : null;
  }
  if (req.pmMarket !== undefined) {
    snapshot.pmMarket = r.pmMarket ? pmMarketFromJson(r.pmMarket as Json) : null;
    snapshot.pmCluster = (r.pmCluster as ClusterMember[] | null) ?? [];
  }
  return snapshot;
}

export interface IdempotencyClaim {
  idempotencyKey: string;
  route: string;
  requestHash: string;
  statusCode: number;
  response: Record<string, unknown>;
  /** Where the response holds the id of a row this write creates. */
  idPaths: { path: string[]; from: CreatedRow }[];
}

export interface WritePlan {
  /** The snapshot the decision read: every row in it is checked unchanged under the lock. */
  snapshot: BookSnapshot;
  effects: TradeEffects;
  idempotency?: IdempotencyClaim;
  lockTimeoutMs?: number;
}

export type WriteOutcome =
  | { outcome: 'applied'; ids: Partial<Record<CreatedRow, number>> }
  | { outcome: 'stale'; row: string }
  | { outcome: 'exists'; record: StoredIdempotency };

const money = (d: Decimal | undefined): string => (d ?? new Decimal(0)).toString();
const iso = (ms: number): string => new Date(ms).toISOString();

/** `{ref_id: "7"}` or `{$refs: {ref_id: "trade"}}`: the function fills created ids in. */
function ref(column: string, value: RowRef | number | undefined): Json {
  if (value === undefined) return { [column]: null };
  if (typeof value === 'object') return { $refs: { [column]: value.created } };
  return { [column]: String(value) };
}

function dateJson(v: Date | null | undefined): string | null | undefined {
  return v === undefined ? undefined : v === null ? null : v.toISOString();
}

function positionColumns(p: PositionPatch): Json {
  const columns: Json = {
    symbol: p.symbol,
    coin_name: p.coinName,
    side: p.side,
    status: p.status,
    leverage: p.leverage,
    entry_price: p.entryPrice,
    margin: p.margin,
    size_coin: p.sizeCoin,
    maintenance_margin_rate: p.maintenanceMarginRate,
    liquidation_price: p.liquidationPrice,
    open_fees_unrealized: p.openFeesUnrealized,
    stop_loss_price: p.stopLossPrice,
    take_profit_price: p.takeProfitPrice,
    freshness_at_entry: p.freshnessAtEntry,
    exit_price: p.exitPrice,
    exit_reason: p.exitReason,
    realized_pnl: p.realizedPnl,
    idempotency_key: p.idempotencyKey,
    opened_at: dateJson(p.openedAt),
    closed_at: dateJson(p.closedAt),
    created_at: dateJson(p.createdAt),
    updated_at: dateJson(p.updatedAt),
  };
  // an absent key keeps the column (jsonb_populate_record over the current row)
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
}

function eventRow(e: PositionEvent): Json {
  return {
    ...(typeof e.positionId === 'number' ? { position_id: e.positionId } : { $refs: { position_id: 'position' } }),
    type: e.type,
    size_delta_coin: e.sizeDeltaCoin,
    mark_price: e.markPrice,
    fill_price: e.fillPrice,
    realized_pnl: e.realizedPnl,
    margin_delta: e.marginDelta,
    fee: e.fee,
    slippage: e.slippage,
    execution_version: e.executionVersion,
    idempotency_key: e.idempotencyKey,
    created_at: iso(e.atMs),
  };
}

/** The JSON plan paper_trade_write takes (column names, numbers as strings). */
export function planJson(plan: WritePlan): Json {
  const { snapshot, effects: fx } = plan;
  const guards: Json = { wallet: snapshot.wallet.version };
  if (snapshot.holding) guards.holding = { coinId: snapshot.holding.coinId, version: snapshot.holding.version };
  if (snapshot.spotOrder !== undefined && snapshot.spotOrder !== null) guards.spotOrder = { id: snapshot.spotOrder.id, version: snapshot.spotOrder.version };
  if (snapshot.position !== undefined) {
    guards.position = snapshot.position
      ? { id: snapshot.position.id, version: snapshot.position.version }
      : { coinId: fx.newPosition?.coinId ?? null, version: null };
  }
  const out: Json = { walletId: snapshot.wallet.id, keyId: snapshot.wallet.keyId, guards };
  if (plan.lockTimeoutMs !== undefined) out.lockTimeoutMs = plan.lockTimeoutMs;
  if (plan.idempotency) {
    const i = plan.idempotency;
    out.idempotency = { key: i.idempotencyKey, route: i.route, requestHash: i.requestHash, statusCode: i.statusCode, response: i.response, idPaths: i.idPaths };
  }
  if (fx.newOrder) {
    const o = fx.newOrder;
    const at = iso(o.atMs);
    out.newSpotOrder = {
      coin_id: o.coinId,
      symbol: o.symbol,
      side: o.side,
      order_type: o.orderType,
      quantity: o.quantity.toString(),
      limit_price: o.limitPrice.toString(),
      stop_price: o.stopPrice?.toString() ?? null,
      status: o.status,
      frozen_amount: o.frozenAmount.toString(),
      idempotency_key: o.idempotencyKey,
      checked_until: at,
      triggered_at: o.status === 'triggered' ? at : null,
      created_at: at,
      updated_at: at,
    };
  }
  if (fx.rows) out.rows = fx.rows;
  if (fx.newPosition) out.newPosition = { coin_id: fx.newPosition.coinId, ...positionColumns(fx.newPosition) };
  if (fx.trade) {
    const t = fx.trade;
    out.trade = {
      venue: t.venue,
      side: t.side,
      coin_id: t.coinId ?? null,
      symbol: t.symbol ?? null,
      market: t.market ?? null,
      outcome: t.outcome ?? null,
      realized_pnl: t.realizedPnl === null ? null : t.realizedPnl.toString(),
      closed_at: iso(t.closedAtMs),
      ref_type: t.refType ?? null,
      detail: t.detail,
      ...ref('ref_id', t.refId),
    };
  }
  if (fx.orderChange) {
    const c = fx.orderChange;
    const at = iso(c.atMs);
    out.spotOrderUpdate = {
      id: c.id,
      status: c.status,
      updated_at: at,
      ...(c.status === 'triggered' ? { triggered_at: at, checked_until: at } : { closed_at: at }),
      ...(c.filledByTrade ? { $refs: { fill_trade_id: 'trade' } } : {}),
    };
  }
  if (fx.positionChange) out.positionUpdate = { id: fx.positionChange.id, ...positionColumns(fx.positionChange.patch) };
  out.cash = (fx.cash ?? []).map((p) => ({ bucket: p.bucket, amount: p.amount.toString(), reason: p.reason, ref_type: p.refType ?? null, ...ref('ref_id', p.refId) }));
  out.holdings = (fx.coins ?? []).map((m) => ({
    coin_id: m.coinId,
    available: money(m.available),
    frozen: money(m.frozen),
    avg_cost_usd: m.avgCostUsd?.toString() ?? null,
    updated_at: iso(m.atMs),
    reason: m.reason,
    ref_type: m.refType ?? null,
    ...ref('ref_id', m.refId),
  }));
  out.futuresEvents = (fx.positionEvents ?? []).map(eventRow);
  return out;
}

/** One round trip: every effect, or nothing when a row read has changed (`stale`). */
export async function writeTrade(db: Queryable, plan: WritePlan): Promise<WriteOutcome> {
  const json = JSON.stringify(planJson(plan));
  const [row] = await queryRows<{ r: WriteOutcome }>(db, sql`select paper_trade_write(${json}::jsonb) as r`);
  return row!.r;
}
