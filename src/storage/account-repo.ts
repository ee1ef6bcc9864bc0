/** Account reads over the shared trade log, equity snapshots and the ledger (every venue). */
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

export interface TradeRow {
  id: number;
  venue: 'spot' | 'futures' | 'pm';
  side: string;
  coinId: string | null;
  symbol: string | null;
  market: string | null;
  outcome: string | null;
  realizedPnl: string | null;
  closedAt: Date;
  detail: Record<string, unknown>;
}

/** Most recent first; `updatedSince` keeps rows closed/settled at or after it. */
export async function listTrades(
  db: Queryable,
  keyId: number,
  q: { venue: 'all' | 'spot' | 'futures' | 'pm'; limit: number; updatedSince?: Date },
): Promise<TradeRow[]> {
  const rows = await queryRows<TradeRow & { closedAt: Date | string; id: number | string }>(
    db,
    sql`select id, venue, side, coin_id as "coinId", symbol, market, outcome, realized_pnl::text as "realizedPnl",
               closed_at as "closedAt", detail
        from closed_trades
        where key_id = ${keyId}
          ${q.venue === 'all' ? sql`` : sql`and venue = ${q.venue}`}
          ${q.updatedSince ? sql`and closed_at >= ${q.updatedSince.toISOString()}::timestamptz` : sql``}
        order by closed_at desc, id desc
        limit ${q.limit}`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), closedAt: new Date(r.closedAt) }));
}

export interface RealizedPoint {
  id: number;
  t: Date;
  venue: 'spot' | 'futures' | 'pm';
  realizedPnl: string;
  cumulative: string;
}

/**
 * One point per realization at or after `from`, oldest first, capped at the newest `cap`;
 * `cumulative` is the all-time running total of realized PnL up to and including the point.
 */
export async function realizedPoints(db: Queryable, keyId: number, from: Date, cap: number): Promise<RealizedPoint[]> {
  const rows = await queryRows<{ id: number | string; t: Date | string; venue: RealizedPoint['venue']; realizedPnl: string; cumulative: string }>(
    db,
    sql`select * from (
          select id, closed_at as t, venue, realized_pnl::text as "realizedPnl",
                 (sum(realized_pnl) over (order by closed_at, id))::text as cumulative
          from closed_trades where key_id = ${keyId} and realized_pnl is not null
        ) s
        where s.t >= ${from.toISOString()}::timestamptz
        order by s.t desc, s.id desc
        limit ${cap}`,
  );
  return rows.reverse().map((r) => ({ ...r, id: Number(r.id), t: new Date(r.t) }));
}

export interface SnapshotRow {
  day: string;
  usdValue: string;
}

/** Daily equity snapshots from `fromDay` (YYYY-MM-DD) on, oldest first. */
export async function listSnapshots(db: Queryable, keyId: number, fromDay: string): Promise<SnapshotRow[]> {
  return queryRows<SnapshotRow>(
    db,
    sql`select to_char(day, 'YYYY-MM-DD') as day, usd_value::text as "usdValue" from equity_snapshots
        where key_id = ${keyId} and day >= ${fromDay}::date order by day`,
  );
}

export async function upsertSnapshot(db: Queryable, keyId: number, day: string, usdValue: string, takenAt: Date): Promise<void> {
  await db.execute(
    sql`insert into equity_snapshots (key_id, day, usd_value, taken_at) values (${keyId}, ${day}::date, ${usdValue}::numeric, ${takenAt.toISOString()}::timestamptz)
        on conflict (key_id, day) do update set usd_value = excluded.usd_value, taken_at = excluded.taken_at`,
  );
}

/** Every book with its cash total and key, for the snapshot job. */
export async function listBooks(db: Queryable): Promise<{ walletId: number; keyId: number; available: string; frozen: string; frozenPm: string; frozenFutures: string }[]> {
  return queryRows(
    db,
    sql`select w.id as "walletId", w.key_id as "keyId", w.cash_available::text as available, w.cash_frozen::text as frozen,
               w.cash_frozen_pm::text as "frozenPm", w.cash_frozen_futures::text as "frozenFutures"
        from wallets w join api_keys k on k.id = w.key_id where k.revoked_at is null order by w.id`,
  );
}

export interface VenueStatsRow {
  venue: 'spot' | 'futures' | 'pm';
  realizedPnl: string;
  tradeCount: number;
  winCount: number;
  lossCount: number;
  neutralCount: number;
  grossWin: string;
  grossLoss: string;
}

/** Decided trades (realized PnL not null) per venue. */
export async function venueStats(db: Queryable, keyId: number): Promise<VenueStatsRow[]> {
  return queryRows<VenueStatsRow>(
    db,
    sql`select venue, coalesce(sum(realized_pnl), 0)::text as "realizedPnl", count(*)::int as "tradeCount",
               count(*) filter (where realized_pnl > 0)::int as "winCount",
               count(*) filter (where realized_pnl < 0)::int as "lossCount",
               count(*) filter (where realized_pnl = 0)::int as "neutralCount",
               coalesce(sum(realized_pnl) filter (where realized_pnl > 0), 0)::text as "grossWin",
               coalesce(-sum(realized_pnl) filter (where realized_pnl < 0), 0)::text as "grossLoss"
        from closed_trades where key_id = ${keyId} and realized_pnl is not null group by venue`,
  );
}

/** Peak-to-trough of cumulative realized PnL (from 0), and UTC days with any trade-log row. */
export async function drawdownAndActiveDays(db: Queryable, keyId: number): Promise<{ maxDrawdown: string; activeDays: number }> {
  const [row] = await queryRows<{ maxDrawdown: string; activeDays: number }>(
    db,
    sql`with c as (
          select closed_at, id, sum(realized_pnl) over (order by closed_at, id) as cum from closed_trades
          where key_id = ${keyId} and realized_pnl is not null
        ), x as (
          select cum, greatest(0, max(cum) over (order by closed_at, id)) as peak from c
        )
        select (select coalesce(max(peak - cum), 0)::text from x) as "maxDrawdown",
               (select count(distinct (closed_at at time zone 'UTC')::date)::int from closed_trades where key_id = ${keyId}) as "activeDays"`,
  );
  return row ?? { maxDrawdown: '0', activeDays: 0 };
}

export interface AuditCounts {
  ledgerEventCount: number;
  quoteCount: number;
  writeCount: number;
  rejectionCount: number;
  idempotentReplayCount: number;
  runIdEventCount: number;
  decisionIdEventCount: number;
  writesWithQuote: number;
}

/**
 * Ledger counts for auditStats (supplement 2.7). A write "follows a quote" when the same key
 * quoted the same instrument (body coinId, or PM source/slug) in the 5 minutes before it.
 */
export async function auditCounts(db: Queryable, keyId: number): Promise<AuditCounts> {
  const [row] = await queryRows<AuditCounts>(
    db,
    sql`with e as (
          select event_type, ledger_status, run_id, decision_id, started_at, venue,
                 coalesce(request_summary #>> '{body,coinId}',
                          (request_summary #>> '{body,source}') || '/' || (request_summary #>> '{body,slug}')) as instrument
          from ledger_events where key_id = ${keyId}
        )
        select count(*)::int as "ledgerEventCount",
               count(*) filter (where event_type = 'quote')::int as "quoteCount",
               count(*) filter (where event_type = 'write')::int as "writeCount",
               count(*) filter (where ledger_status = 'rejected')::int as "rejectionCount",
               count(*) filter (where ledger_status = 'idempotent_replay')::int as "idempotentReplayCount",
               count(*) filter (where run_id is not null)::int as "runIdEventCount",
               count(*) filter (where decision_id is not null)::int as "decisionIdEventCount",
               count(*) filter (where event_type = 'write' and instrument is not null and exists (
                 select 1 from e q where q.event_type = 'quote' and q.instrument = e.instrument
                   and q.venue is not distinct from e.venue
                   and q.started_at <= e.started_at and q.started_at >= e.started_at - interval '5 minutes'))::int as "writesWithQuote"
        from e`,
  );
  return row!;
}

export interface PortfolioStats {
  tradeRows: number;
  decidedTrades: number;
  wins: number;
  ordersPlaced: number;
  /** Per requested day: the latest equity snapshot on or before it (null when none). */
  windowStarts: (string | null)[];
}

/** What the portfolio needs besides the book, holdings and orders, in one round trip. */
export async function portfolioStats(db: Queryable, keyId: number, days: string[]): Promise<PortfolioStats> {
  const starts = days.map(
    (d) => sql`(select s.usd_value::text from equity_snapshots s where s.key_id = ${keyId} and s.day <= ${d}::date order by s.day desc limit 1)`,
  );
  const [row] = await queryRows<{ tradeRows: number; decidedTrades: number; wins: number; ordersPlaced: number; windowStarts: (string | null)[] | null }>(
    db,
    sql`select t."tradeRows", t."decidedTrades", t.wins,
               (select count(*)::int from spot_orders o where o.key_id = ${keyId}) as "ordersPlaced",
               ${days.length === 0 ? sql`null::text[]` : sql`array[${sql.join(starts, sql`, `)}]`} as "windowStarts"
        from (select count(*)::int as "tradeRows", count(realized_pnl)::int as "decidedTrades",
                     count(*) filter (where realized_pnl > 0)::int as wins
              from closed_trades where key_id = ${keyId}) t`,
  );
  return { ...row!, windowStarts: row?.windowStarts ?? [] };
}
