/** Account reads over the shared trade log, equity snapshots and the ledger (every venue). */
import type { AuditCounts } from '../domain/audit-stats.js';
import { sql, type SQL } from 'drizzle-orm';
import { cacheable } from './book-read-repo.js';
import { queryRows, type Queryable } from './db.js';
import { deltaWindow } from './delta-window.js';

export interface TradeRow {
  id: number;
  venue: 'spot' | 'futures' | 'pm';
  side: string;
  coinId: string | null;
  symbol: string | null;
  market: string | null;
  outcome: string | null;
  realizedPnl: string | null;
  /** ISO time (JSON) */
  closedAt: string;
  detail: Record<string, unknown>;
}

/**
 * The key's trade log as a book part (src/storage/book-read-repo.ts), most recent first. * With `updatedSince` (delta polling), the oldest rows closed/settled at or after it, up to
 * `limit` and ending at a millisecond boundary (src/storage/delta-window.ts), still most recent
 * first; without it, the `limit` most recent.
 */
export function tradesPart(q: { venue: 'all' | 'spot' | 'futures' | 'pm'; limit: number; updatedSince?: Date }): SQL {
  const venue = q.venue === 'all' ? sql`` : sql`and venue = ${q.venue}`;
  const window = q.updatedSince
    ? sql`and ${deltaWindow(sql`closed_at`, q.updatedSince, q.limit, sql`select closed_at as at, id from closed_trades where key_id = w.key_id ${venue}`)}`
    : sql``;
  return cacheable(sql`coalesce((select json_agg(t) from (
    select id, venue, side, coin_id as "coinId", symbol, market, outcome, realized_pnl::text as "realizedPnl",
           closed_at as "closedAt", detail
    from closed_trades
    where key_id = w.key_id ${venue} ${window}
    order by closed_at desc, id desc
    ${q.updatedSince ? sql`` : sql`limit ${q.limit}`}) t), '[]'::json)`, `trades(${q.venue},${q.limit},${q.updatedSince?.toISOString() ?? ''})`);
}

export interface RealizedPoint {
  id: number;
  t: string;
  venue: 'spot' | 'futures' | 'pm';
  realizedPnl: string;
  cumulative: string;
}

/**
 * One point per realization at or after `from`, oldest first, capped at the newest `cap`, as a
 * book part; `cumulative` is the all-time running total of realized PnL up to and including the
 * point: the running total kept in account_totals minus what was realized after the point (so
 * the read stays within the window, whatever the key's history).
 */
export function realizedPointsPart(from: Date, cap: number): SQL {
  return cacheable(sql`coalesce((select json_agg(json_build_object('id', s.id, 't', s.closed_at, 'venue', s.venue, 'realizedPnl', s.realized_pnl::text,
                 'cumulative', (coalesce((select cum_realized from account_totals a where a.key_id = w.key_id), 0) - s.after)::text)
                 order by s.closed_at, s.id)
       from (select id, closed_at, venue, realized_pnl,
                    coalesce(sum(realized_pnl) over (order by closed_at desc, id desc rows between unbounded preceding and 1 preceding), 0) as after
             from (select id, closed_at, venue, realized_pnl from closed_trades
                   where key_id = w.key_id and realized_pnl is not null and closed_at >= ${from.toISOString()}::timestamptz
                   order by closed_at desc, id desc limit ${cap}) newest) s), '[]'::json)`, `realized(${from.toISOString()},${cap})`);
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

export interface PerformanceTotals {
  /** decided trades (realized PnL not null) per venue */
  venues: VenueStatsRow[];
  /** peak-to-trough of cumulative realized PnL (from 0) */
  maxDrawdown: string;
  /** UTC days with any trade-log row */
  activeDays: number;
}

/** The running totals kept by migration 0011's triggers: cost independent of the key's history. */
function performanceTotalsSql(keyId: number): SQL {
  return sql`json_build_object(
    'venues', coalesce((select json_agg(json_build_object('venue', v.venue, 'realizedPnl', v.realized_pnl::text, 'tradeCount', v.decided_count,
                  'winCount', v.win_count, 'lossCount', v.loss_count, 'neutralCount', v.neutral_count,
                  'grossWin', v.gross_win::text, 'grossLoss', v.gross_loss::text))
                from account_venue_totals v where v.key_id = ${keyId}), '[]'::json),
    'maxDrawdown', coalesce((select max_drawdown::text from account_totals where key_id = ${keyId}), '0'),
    'activeDays', coalesce((select active_days from account_totals where key_id = ${keyId}), 0))`;
}

/** A key's ledger counters (`AuditCounts`) from its `ledger_key_totals` row `l`; zeros without one. */
const AUDIT_COLUMNS = sql`coalesce(l.events, 0)::int as "ledgerEventCount", coalesce(l.quotes, 0)::int as "quoteCount",
  coalesce(l.writes, 0)::int as "writeCount", coalesce(l.rejections, 0)::int as "rejectionCount",
  coalesce(l.replays, 0)::int as "idempotentReplayCount", coalesce(l.run_ids, 0)::int as "runIdEventCount",
  coalesce(l.decision_ids, 0)::int as "decisionIdEventCount", coalesce(l.writes_with_quote, 0)::int as "writesWithQuote",
  coalesce(l.evidence_writes, 0)::int as "evidenceWriteCount", coalesce(l.writes_with_evidence, 0)::int as "writesWithEvidence"`;

/** Ledger counts of several keys in one round trip (Arena rows); a key with no ledger row has zeros. */
export async function auditCountsOf(db: Queryable, keyIds: number[]): Promise<Map<number, AuditCounts>> {
  if (keyIds.length === 0) return new Map();
  const rows = await queryRows<AuditCounts & { keyId: number }>(
    db,
    sql`select k.id as "keyId", ${AUDIT_COLUMNS}
        from unnest(${`{${keyIds.join(',')}}`}::int[]) as k(id) left join ledger_key_totals l on l.key_id = k.id`,
  );
  return new Map(rows.map(({ keyId, ...counts }) => [keyId, counts]));
}

/**
 * Realized totals and ledger counts for auditStats (supplement 2.7) in one round trip, from the
 * running totals migration 0011's triggers keep. A write "follows a quote" when the same key
 * quoted the same instrument (body coinId, or PM source/slug) in the 5 minutes before it.
 */
export async function performanceRead(db: Queryable, keyId: number): Promise<{ totals: PerformanceTotals; audit: AuditCounts }> {
  const [row] = await queryRows<AuditCounts & { totals: PerformanceTotals }>(
    db,
    sql`select ${AUDIT_COLUMNS}, ${performanceTotalsSql(keyId)} as totals
        from (select 1) one left join ledger_key_totals l on l.key_id = ${keyId}`,
  );
  const { totals, ...audit } = row!;
  return { totals, audit };
}
