/**
 * The daily (and hourly) equity snapshot of every live book in one INSERT … SELECT (set-based: its cost is
 * one pass over wallets, holdings and open positions, not a query per book). The valuation is
 * the portfolio's (src/services/equity.ts + equity-adjustments.ts) written in SQL; a test keeps
 * the two equal: cash total + Σ holdings × (mark, else average cost) + Σ futures unrealized PnL
 * at mark (coins without a positive mark add 0) + Σ PM (shares × chosen-side probability − stake).
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** Coins some live book holds or has an open futures position in (the marks the snapshot needs). */
export async function coinsInBooks(db: Queryable): Promise<string[]> {
  const rows = await queryRows<{ coinId: string }>(
    db,
    sql`select coin_id as "coinId" from holdings where available > 0 or frozen > 0
        union select coin_id from futures_positions where status = 'open'`,
  );
  return rows.map((r) => r.coinId);
}

export interface Mark {
  coinId: string;
  /** the price as text, exactly as the portfolio's Decimal sees it */
  price: string;
}

/** Hourly values are kept this long: the 24 h window reads the one of 24 h ago. */
export const HOURLY_KEPT_MS = 26 * 3_600_000;

/**
 * Upserts today's (`day`) and this hour's snapshot of every live book, and drops hourly values
 * older than HOURLY_KEPT_MS; returns how many books. One statement: the books are valued once.
 */
export async function snapshotAllBooks(db: Queryable, day: string, takenAt: Date, marks: Mark[]): Promise<number> {
  const hour = new Date(Math.floor(takenAt.getTime() / 3_600_000) * 3_600_000).toISOString();
  const keptFrom = new Date(takenAt.getTime() - HOURLY_KEPT_MS).toISOString();
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with px as (select "coinId" as coin_id, price from jsonb_to_recordset(${JSON.stringify(marks)}::jsonb) as m("coinId" text, price numeric)),
        valued as (
          select w.key_id,
            w.cash_available + w.cash_frozen + w.cash_frozen_pm + w.cash_frozen_futures
            + coalesce((select sum((h.available + h.frozen) * coalesce(px.price, h.avg_cost_usd))
                        from holdings h left join px on px.coin_id = h.coin_id
                        where h.wallet_id = w.id and (h.available > 0 or h.frozen > 0)), 0)
            -- never below −margin, as the portfolio values it (valueOpenFutures)
            + coalesce((select round(sum(greatest(-p.margin, (px.price - p.entry_price) * p.size_coin * case when p.side = 'long' then 1 else -1 end)), 8)
                        from futures_positions p join px on px.coin_id = p.coin_id and px.price > 0
                        where p.key_id = w.key_id and p.status = 'open'), 0)
            + coalesce((select round(sum(m.shares_musd * (case when m.side = 'yes' then m.prob else 100 - m.prob end) / 100 - m.stake_musd), 8)
                        from (select p.side, p.shares_musd, p.stake_musd,
                                     (select (o->>'probability')::numeric from pm_markets pm, jsonb_array_elements(pm.outcomes) o
                                      where pm.source = p.source and pm.slug = p.event_slug and o->>'externalMarketId' = p.outcome_external_id
                                      limit 1) as prob
                              from pm_positions p where p.key_id = w.key_id and p.status = 'open') m
                        where m.prob between 0 and 100), 0) as usd_value
          from wallets w join api_keys k on k.id = w.key_id where k.revoked_at is null),
        written as (
          insert into equity_snapshots (key_id, day, usd_value, taken_at)
          select key_id, ${day}::date, usd_value, ${takenAt.toISOString()}::timestamptz from valued
          on conflict (key_id, day) do update set usd_value = excluded.usd_value, taken_at = excluded.taken_at
          returning 1),
        hourly as (
          insert into equity_snapshots_hourly (key_id, hour, usd_value, taken_at)
          select key_id, ${hour}::timestamptz, usd_value, ${takenAt.toISOString()}::timestamptz from valued
          on conflict (key_id, hour) do update set usd_value = excluded.usd_value, taken_at = excluded.taken_at),
        pruned as (delete from equity_snapshots_hourly where hour < ${keptFrom}::timestamptz)
        select count(*)::int as n from written`,
  );
  return rows[0]?.n ?? 0;
}
