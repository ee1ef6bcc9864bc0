/** SQL of the reference's extra PM research reads (volume history, tapes, wallets, revisions, coverage). */
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

const isoOf = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());
/** jsonb is selected as text (`::text`) so both drivers hand back the same thing to parse. */
const jsonOf = <T>(v: unknown): T => (v === null ? null : JSON.parse(v as string)) as T;

/** A timestamptz as PostgreSQL writes it into JSON, in the session's time zone (`2026-11-27T16:32:00+01:00`). */
const PG_JSON_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d:\d\d$/;
/** A stored revision value with its instants written like every other instant of the API (`…Z`, milliseconds). */
export const revisionValueOf = (v: unknown): unknown =>
  v === null ? null : JSON.parse(v as string, (_key, value: unknown) => (typeof value === 'string' && PG_JSON_INSTANT.test(value) ? new Date(value).toISOString() : value));

/**
 * Per venue and UTC day: the day-over-day rise of each market's cumulative volume (its largest
 * capture that day), summed over the venue's markets. A market's first captured day has no
 * previous day, so it adds nothing (never a made-up zero).
 */
export async function venueDailyVolumes(db: Queryable, sinceMs: number): Promise<{ source: string; day: string; volume: number }[]> {
  const rows = await queryRows<{ source: string; day: string; volume: string | number }>(
    db,
    sql`with d as (
          select source, slug, (captured_at at time zone 'UTC')::date as day, max(volume) as v
          from pm_captures where captured_at >= ${new Date(sinceMs).toISOString()}::timestamptz
          group by 1, 2, 3),
        x as (select source, day, v - lag(v) over (partition by source, slug order by day) as delta from d)
        select source, to_char(day, 'YYYY-MM-DD') as day, sum(greatest(delta, 0)) as volume
        from x where delta is not null group by 1, 2 order by 2, 1`,
  );
  return rows.map((r) => ({ source: r.source, day: r.day, volume: Number(r.volume) }));
}

/** The newest `limit` captures of one market, newest first (the simulated venues' trade tape). */
export async function recentCaptures(
  db: Queryable,
  source: string,
  slug: string,
  limit: number,
): Promise<{ capturedAt: Date; probabilities: number[]; volume: number }[]> {
  const rows = await queryRows<{ captured_at: string; probabilities: unknown; volume: number }>(
    db,
    sql`select captured_at, probabilities::text as probabilities, volume from pm_captures where source = ${source} and slug = ${slug}
        order by captured_at desc limit ${limit}`,
  );
  return rows.map((r) => ({ capturedAt: new Date(r.captured_at), probabilities: jsonOf<number[]>(r.probabilities), volume: Number(r.volume) }));
}

export interface WalletAggregate {
  source: string;
  wallet: string;
  traderName: string | null;
  tradeCount: number;
  totalUsd: number;
  maxUsd: number;
  firstSeen: string | null;
  lastSeen: string | null;
}

/** Large prints grouped by venue and wallet since `sinceMs` (on-chain venues carry wallets). */
export async function whaleWalletAggregates(db: Queryable, sources: string[], sinceMs: number, wallet?: string): Promise<WalletAggregate[]> {
  const rows = await queryRows<{ source: string; wallet: string; trader_name: string | null; n: string; total: string; max: string; first: string; last: string }>(
    db,
    sql`select source, wallet, max(trader_name) as trader_name, count(*) as n, sum(usd_value) as total, max(usd_value) as max,
          min(traded_at) as first, max(traded_at) as last
        from pm_whale_trades
        where wallet is not null and source in (${sql.join(sources.map((s) => sql`${s}`), sql`, `)})
          and traded_at >= ${new Date(sinceMs).toISOString()}::timestamptz
          ${wallet === undefined ? sql`` : sql`and lower(wallet) = lower(${wallet})`}
        group by source, wallet order by sum(usd_value) desc, wallet limit 500`,
  );
  return rows.map((r) => ({
    source: r.source,
    wallet: r.wallet,
    traderName: r.trader_name,
    tradeCount: Number(r.n),
    totalUsd: Math.round(Number(r.total) * 100) / 100,
    maxUsd: Math.round(Number(r.max) * 100) / 100,
    firstSeen: isoOf(r.first),
    lastSeen: isoOf(r.last),
  }));
}

export interface WalletFill {
  slug: string;
  title: string;
  side: string;
  outcome: string;
  usdValue: number;
  price: number;
  tradedAt: Date;
  evidenceRef: string | null;
}

/** One wallet's prints on one venue since `sinceMs`, newest first. */
export async function walletFills(db: Queryable, source: string, wallet: string, sinceMs: number): Promise<WalletFill[]> {
  const rows = await queryRows<{ slug: string; title: string; side: string; outcome: string; usd_value: number; price: number; traded_at: string; evidence_ref: string | null }>(
    db,
    sql`select slug, title, side, outcome, usd_value, price, traded_at, evidence_ref from pm_whale_trades
        where source = ${source} and lower(wallet) = lower(${wallet}) and traded_at >= ${new Date(sinceMs).toISOString()}::timestamptz
        order by traded_at desc, id limit 1000`,
  );
  return rows.map((r) => ({
    slug: r.slug,
    title: r.title,
    side: r.side,
    outcome: r.outcome,
    usdValue: Number(r.usd_value),
    price: Number(r.price),
    tradedAt: new Date(r.traded_at),
    evidenceRef: r.evidence_ref,
  }));
}

export interface RevisionRow {
  id: number;
  subjectKey: string;
  field: string;
  prevValue: unknown;
  nextValue: unknown;
  reasonCode: string;
  effectiveAt: string | null;
  observedAt: string;
  supersedesId: number | null;
}

/** A market's revisions, newest first; `limit + 1` rows tell the caller whether the page was cut. */
export async function marketRevisions(db: Queryable, source: string, slug: string, limit: number): Promise<RevisionRow[]> {
  const rows = await queryRows<{
    id: string | number; subject_key: string; field: string; prev_value: unknown; next_value: unknown;
    reason_code: string; effective_at: string | null; observed_at: string; supersedes_id: string | number | null;
  }>(
    db,
    sql`select id, subject_key, field, prev_value::text as prev_value, next_value::text as next_value, reason_code, effective_at, observed_at, supersedes_id
        from pm_revisions where source = ${source} and slug = ${slug} order by id desc limit ${limit + 1}`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    subjectKey: r.subject_key,
    field: r.field,
    prevValue: revisionValueOf(r.prev_value),
    nextValue: revisionValueOf(r.next_value),
    reasonCode: r.reason_code,
    effectiveAt: isoOf(r.effective_at),
    observedAt: isoOf(r.observed_at)!,
    supersedesId: r.supersedes_id === null ? null : Number(r.supersedes_id),
  }));
}

/** The value each field had at `asOfMs` (the newest revision observed by then, per field). */
export async function fieldsAsOf(db: Queryable, source: string, slug: string, asOfMs: number): Promise<Record<string, unknown>> {
  const rows = await queryRows<{ field: string; next_value: unknown }>(
    db,
    sql`select distinct on (field) field, next_value::text as next_value from pm_revisions
        where source = ${source} and slug = ${slug} and observed_at <= ${new Date(asOfMs).toISOString()}::timestamptz
        order by field, id desc`,
  );
  return Object.fromEntries(rows.map((r) => [r.field, revisionValueOf(r.next_value)]));
}

export interface VenueCatalogFacts {
  source: string;
  catalogFirstSeenAt: string | null;
  probabilityHistoryStartAt: string | null;
}

/** When each venue's catalog was first seen (its first 'created' revision) and how far its captures reach. */
export async function venueCatalogFacts(db: Queryable): Promise<VenueCatalogFacts[]> {
  const rows = await queryRows<{ source: string; first_seen: string | null; history_start: string | null }>(
    db,
    // Per-market first capture through the primary-key index: no scan of the whole capture table.
    sql`select m.source, min(r.first_seen) as first_seen, min(m.first_capture) as history_start from
          (select source, slug, (select captured_at from pm_captures c where c.source = pm.source and c.slug = pm.slug
             order by captured_at limit 1) as first_capture from pm_markets pm) m
          left join (select source, min(observed_at) as first_seen from pm_revisions where reason_code = 'created' group by source) r
            on r.source = m.source
        group by m.source`,
  );
  return rows.map((r) => ({ source: r.source, catalogFirstSeenAt: isoOf(r.first_seen), probabilityHistoryStartAt: isoOf(r.history_start) }));
}
