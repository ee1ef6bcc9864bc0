import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { cacheable, type BookPart } from './book-read-repo.js';
import { queryRows, type Queryable, type Tx } from './db.js';
import { deltaWindow } from './delta-window.js';
import { futuresEvents, futuresPositions } from './schema.js';
import { causesOf } from './sql-state.js';

export type FuturesPositionRow = typeof futuresPositions.$inferSelect;
export type NewFuturesPosition = typeof futuresPositions.$inferInsert;
export type NewFuturesEvent = typeof futuresEvents.$inferInsert;
export type FuturesEventRow = typeof futuresEvents.$inferSelect;
export type FuturesPositionPatch = Partial<Omit<NewFuturesPosition, 'id' | 'keyId' | 'walletId' | 'coinId'>>;

/** The list endpoint answers at most this many positions (contract §2.11). */
export const POSITIONS_LIST_MAX = 200;

/** How long a trade write waits for a lock held by another writer before answering 503. */
export const WRITE_LOCK_TIMEOUT_MS = 3000;

/** Trade writes give up on a held lock after WRITE_LOCK_TIMEOUT_MS instead of queueing forever. */
export async function setWriteLockTimeout(tx: Tx): Promise<void> {
  await tx.execute(sql.raw(`set local lock_timeout = '${WRITE_LOCK_TIMEOUT_MS}ms'`));
}

/**
 * True for PostgreSQL errors that mean "another writer holds this row, try again":
 * lock_not_available (NOWAIT, lock_timeout), deadlock, serialization failure.
 */
export function isLockContention(error: unknown): boolean {
  for (const { code } of causesOf(error)) {
    if (code === '55P03' || code === '40P01' || code === '40001') return true;
  }
  return false;
}

export async function findOpenPosition(db: Queryable, keyId: number, coinId: string): Promise<FuturesPositionRow | null> {
  const rows = await db
    .select()
    .from(futuresPositions)
    .where(and(eq(futuresPositions.keyId, keyId), eq(futuresPositions.coinId, coinId), eq(futuresPositions.status, 'open')));
  return rows[0] ?? null;
}

/**
 * The key's futures positions as a part of its book read (src/storage/book-read-repo.ts), open
 * first, then the most recently moved, up to POSITIONS_LIST_MAX; with `updatedSince` (delta
 * polling), the POSITIONS_LIST_MAX oldest moves at or after it (src/domain/delta-polling.ts) in
 * that order. `toPositionRows` types them.
 */
export function positionsPart(updatedSince: Date | null): BookPart {
  return cacheable(sql`coalesce((select json_agg(r) from (
    select p.id, p.key_id as "keyId", p.wallet_id as "walletId", p.coin_id as "coinId", p.symbol, p.coin_name as "coinName",
           p.side, p.status, p.leverage::text as leverage, p.entry_price::text as "entryPrice", p.margin::text as margin,
           p.size_coin::text as "sizeCoin", p.maintenance_margin_rate::text as "maintenanceMarginRate",
           p.liquidation_price::text as "liquidationPrice", p.open_fees_unrealized::text as "openFeesUnrealized",
           p.stop_loss_price::text as "stopLossPrice", p.take_profit_price::text as "takeProfitPrice",
           p.freshness_at_entry as "freshnessAtEntry", p.exit_price::text as "exitPrice", p.exit_reason as "exitReason",
           p.realized_pnl::text as "realizedPnl", p.idempotency_key as "idempotencyKey", p.opened_at as "openedAt",
           p.closed_at as "closedAt", p.created_at as "createdAt", p.updated_at as "updatedAt"
    from futures_positions p
    where p.key_id = w.key_id
      ${updatedSince ? sql`and ${deltaWindow(sql`p.updated_at`, updatedSince, POSITIONS_LIST_MAX, sql`select updated_at as at, id from futures_positions where key_id = w.key_id`)}` : sql``}
    order by (p.status = 'open') desc, p.updated_at desc, p.id desc
    ${updatedSince ? sql`` : sql`limit ${POSITIONS_LIST_MAX}`}) r), '[]'::json)`, `positions(${updatedSince?.toISOString() ?? ''})`);
}

type JsonPositionRow = Omit<FuturesPositionRow, 'openedAt' | 'closedAt' | 'createdAt' | 'updatedAt'> & {
  openedAt: string;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export function toPositionRows(part: unknown): FuturesPositionRow[] {
  return (part as JsonPositionRow[]).map((r) => ({
    ...r,
    id: Number(r.id),
    openedAt: new Date(r.openedAt),
    closedAt: r.closedAt === null ? null : new Date(r.closedAt),
    createdAt: new Date(r.createdAt),
    updatedAt: new Date(r.updatedAt),
  }));
}

/** The open position of one coin as a book part: its side and leverage (null without one). */
export function openPositionPart(coinId: string): BookPart {
  return cacheable(sql`(select json_build_object('side', p.side, 'leverage', p.leverage::text, 'entryPrice', p.entry_price::text,
      'margin', p.margin::text, 'sizeCoin', p.size_coin::text, 'openFeesUnrealized', p.open_fees_unrealized::text,
      'liquidationPrice', p.liquidation_price::text, 'stopLossPrice', p.stop_loss_price::text, 'takeProfitPrice', p.take_profit_price::text)
    from futures_positions p where p.key_id = w.key_id and p.coin_id = ${coinId} and p.status = 'open')`, `openPosition(${coinId})`);
}

export async function openPositionsOfKey(db: Queryable, keyId: number): Promise<FuturesPositionRow[]> {
  return db
    .select()
    .from(futuresPositions)
    .where(and(eq(futuresPositions.keyId, keyId), eq(futuresPositions.status, 'open')));
}

/** Coins that have at least one open position (the risk job prices only these). */
export async function coinsWithOpenPositions(db: Queryable): Promise<string[]> {
  const rows = await queryRows<{ coin_id: string }>(
    db,
    sql`select distinct coin_id from futures_positions where status = 'open'`,
  );
  return rows.map((r) => r.coin_id);
}

export interface TriggeredPosition {
  id: number;
  walletId: number;
}

/**
 * Every open position whose liquidation price, stop-loss or take-profit the given marks
 * reach, in one set-based scan (marks travel as one JSON parameter). Ordered by wallet so
 * settlement batches lock wallets in one order.
 */
export async function triggeredPositions(db: Queryable, marks: { coinId: string; mark: string }[]): Promise<TriggeredPosition[]> {
  if (marks.length === 0) return [];
  const json = JSON.stringify(marks.map((m) => ({ coin_id: m.coinId, mark: m.mark })));
  return queryRows<TriggeredPosition>(
    db,
    sql`select p.id::int as "id", p.wallet_id as "walletId"
        from futures_positions p
        join jsonb_to_recordset(${json}::jsonb) as m(coin_id text, mark numeric) on m.coin_id = p.coin_id
        where p.status = 'open' and (
          (p.side = 'long' and (m.mark <= p.liquidation_price or m.mark <= p.stop_loss_price or m.mark >= p.take_profit_price))
          or (p.side = 'short' and (m.mark >= p.liquidation_price or m.mark >= p.stop_loss_price or m.mark <= p.take_profit_price)))
        order by p.wallet_id, p.id`,
  );
}

/** Locks a batch of wallets in id order (the order every multi-wallet writer uses). */
export async function lockWalletsById(tx: Tx, walletIds: number[]): Promise<void> {
  if (walletIds.length === 0) return;
  await tx.execute(
    sql`select id from wallets where id in (select (jsonb_array_elements_text(${JSON.stringify(walletIds)}::jsonb))::int)
        order by id for update`,
  );
}

/** Locks a batch of positions that are still open (a route may have closed some meanwhile). */
export async function lockOpenPositionsById(tx: Tx, positionIds: number[]): Promise<FuturesPositionRow[]> {
  if (positionIds.length === 0) return [];
  return tx
    .select()
    .from(futuresPositions)
    .where(
      and(
        eq(futuresPositions.status, 'open'),
        sql`${futuresPositions.id} in (select (jsonb_array_elements_text(${JSON.stringify(positionIds)}::jsonb))::bigint)`,
      ),
    )
    .orderBy(futuresPositions.id)
    .for('update');
}

/** Σ open margin per wallet against its frozenFutures bucket: rows where they differ (a books check). */
export async function futuresMarginDiscrepancies(db: Queryable): Promise<{ walletId: number; frozenFutures: string; openMargin: string }[]> {
  return queryRows(
    db,
    sql`select w.id as "walletId", w.cash_frozen_futures::text as "frozenFutures", coalesce(p.total, 0)::text as "openMargin"
        from wallets w
        left join (select wallet_id, sum(margin) as total from futures_positions where status = 'open' group by wallet_id) p
          on p.wallet_id = w.id
        where w.cash_frozen_futures <> coalesce(p.total, 0)`,
  );
}

export interface FinishedPosition {
  id: number;
  status: 'closed' | 'liquidated';
  exitPrice: string;
  exitReason: 'user_close' | 'liquidation' | 'stop_loss' | 'take_profit';
  realizedPnl: string;
  atMs: number;
}

/** Marks many fully settled positions closed or liquidated in one statement (the risk sweep). */
export async function finishPositionsMany(tx: Tx, finished: FinishedPosition[]): Promise<void> {
  if (finished.length === 0) return;
  const json = JSON.stringify(
    finished.map((f) => ({
      id: f.id,
      status: f.status,
      exit_price: f.exitPrice,
      exit_reason: f.exitReason,
      realized_pnl: f.realizedPnl,
      at: new Date(f.atMs).toISOString(),
    })),
  );
  await tx.execute(sql`
    update futures_positions p set
      status = f.status, exit_price = f.exit_price, exit_reason = f.exit_reason, realized_pnl = f.realized_pnl,
      open_fees_unrealized = 0, closed_at = f.at, updated_at = f.at
    from jsonb_to_recordset(${json}::jsonb) as f(id bigint, status text, exit_price numeric, exit_reason text, realized_pnl numeric, at timestamptz)
    where p.id = f.id`);
}

/** Appends position events (one per move) for the ledger export. */
export async function insertFuturesEvents(tx: Tx, events: NewFuturesEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await tx.insert(futuresEvents).values(events.slice(i, i + 1000));
}

/** The key's newest positions and position events, for the ledger export (newest first). */
export async function futuresForExport(
  db: Queryable,
  keyId: number,
  limit: number,
  /** only these positions and their events; undefined = the key's newest */
  positionIds?: readonly number[],
): Promise<{ positions: FuturesPositionRow[]; events: FuturesEventRow[] }> {
  if (positionIds?.length === 0) return { positions: [], events: [] };
  const positionsOf = positionIds ? and(eq(futuresPositions.keyId, keyId), inArray(futuresPositions.id, [...positionIds])) : eq(futuresPositions.keyId, keyId);
  const eventsOf = positionIds ? and(eq(futuresEvents.keyId, keyId), inArray(futuresEvents.positionId, [...positionIds])) : eq(futuresEvents.keyId, keyId);
  const [positions, events] = await Promise.all([
    db.select().from(futuresPositions).where(positionsOf).orderBy(desc(futuresPositions.id)).limit(limit),
    db.select().from(futuresEvents).where(eventsOf).orderBy(desc(futuresEvents.id)).limit(limit),
  ]);
  return { positions, events };
}
