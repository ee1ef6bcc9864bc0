/** Mock PM positions: insert, list, marks and set-based settlement (SQL lives here only). */
import { and, desc, eq, gte, sql, type SQL } from 'drizzle-orm';
import { CASH_COIN_ID } from '../domain/money.js';
import { queryRows, type Queryable, type Tx } from './db.js';
import { deltaWindow } from './delta-window.js';
import { redactApiKeys } from '../util/secrets.js';
import { pmPositions } from './schema.js';

export type PmPositionRow = typeof pmPositions.$inferSelect;
export type NewPmPosition = typeof pmPositions.$inferInsert;
export const PM_POSITIONS_LIST_MAX = 200;

export async function findPmPosition(db: Queryable, id: number): Promise<PmPositionRow | null> {
  const [row] = await db.select().from(pmPositions).where(eq(pmPositions.id, id));
  return row ?? null;
}

/**
 * The key's positions, open first then newest change first, up to `limit`; with `since` (delta
 * polling), the `limit` oldest changes at or after it (src/domain/delta-polling.ts) in that order.
 */
export async function listPmPositions(db: Queryable, keyId: number, since: Date | null, limit = PM_POSITIONS_LIST_MAX): Promise<PmPositionRow[]> {
  const query = db
    .select()
    .from(pmPositions)
    .where(
      since
        ? and(eq(pmPositions.keyId, keyId), deltaWindow(sql`${pmPositions.updatedAt}`, since, limit, sql`select updated_at as at, id from pm_positions where key_id = ${keyId}`))
        : eq(pmPositions.keyId, keyId),
    )
    .orderBy(sql`(${pmPositions.status} = 'open') desc`, desc(pmPositions.updatedAt), desc(pmPositions.id))
    .$dynamic();
  return since ? query : query.limit(limit);
}

export interface OpenPmMark {
  side: string;
  stakeMusd: string;
  sharesMusd: string;
  /** the backed outcome's YES probability now (0..100); null when unreadable */
  outcomeProbability: number | null;
}

/** Open positions of a key with their outcome's current probability, for equity marks. */
export async function openPmMarks(db: Queryable, keyId: number): Promise<OpenPmMark[]> {
  return queryRows<OpenPmMark>(
    db,
    sql`select p.side, p.stake_musd::text as "stakeMusd", p.shares_musd::text as "sharesMusd",
          (select (o->>'probability')::float8 from pm_markets m, jsonb_array_elements(m.outcomes) o
            where m.source = p.source and m.slug = p.event_slug and o->>'externalMarketId' = p.outcome_external_id limit 1) as "outcomeProbability"
        from pm_positions p where p.key_id = ${keyId} and p.status = 'open'`,
  );
}

export interface PendingResolution {
  source: string;
  slug: string;
  state: 'resolved' | 'voided';
  winnerExternalId: string | null;
}

/** Resolved or voided markets that still have open positions. */
export async function resolvedMarketsWithOpenPositions(db: Queryable): Promise<PendingResolution[]> {
  return queryRows<PendingResolution>(
    db,
    sql`select distinct m.source, m.slug, m.resolution_state as state, m.winner_external_id as "winnerExternalId"
        from pm_positions p join pm_markets m on m.source = p.source and m.slug = p.event_slug
        where p.status = 'open' and m.resolution_state is not null`,
  );
}

/**
 * Unresolved markets, closed by their end time before `endedBefore`, that still hold open
 * positions: no venue snapshot resolved them (a venue stopped listing the market).
 */
export async function staleMarketsWithOpenPositions(db: Queryable, endedBefore: Date): Promise<{ source: string; slug: string }[]> {
  // a market without an end time counts from its last capture: no longer listed since then
  return queryRows<{ source: string; slug: string }>(
    db,
    sql`select distinct m.source, m.slug
        from pm_positions p join pm_markets m on m.source = p.source and m.slug = p.event_slug
        where p.status = 'open' and m.resolution_state is null
          and coalesce(m.end_at, m.last_capture_at, m.first_seen_at) < ${endedBefore.toISOString()}::timestamptz`,
  );
}

export const PM_SETTLE_BATCH = 5000;

/**
 * Settles up to `batch` open positions of one resolved market in a single statement:
 * rows bumped (won pays shares, lost 0, void refunds the stake), wallets moved from
 * `frozenPm` (one update per wallet), a journal posting per cash move, a closed trade per
 * position (void: realized PnL null, it is not a decided trade) and the decision stamped
 * (brier and agentBrier as in `brierOf`). Returns how many positions it settled.
 */
export async function settleMarketBatch(
  tx: Tx,
  input: { source: string; slug: string; winnerExternalId: string | null; voidReason: string | null; nowMs: number; batch?: number },
): Promise<number> {
  const now = new Date(input.nowMs).toISOString();
  const winner = input.winnerExternalId;
  const won = winner === null
    ? sql`false`
    : sql`(case when p.side = 'yes' then p.outcome_external_id = ${winner} else p.outcome_external_id <> ${winner} end)`;
  const status = winner === null ? sql`'void_refunded'` : sql`case when ${won} then 'won' else 'lost' end`;
  const payout = winner === null ? sql`p.stake_musd` : sql`case when ${won} then p.shares_musd else 0::numeric end`;
  // in numeric, like brierOf's decimal: float8 gave 0.22089999999999999 for 47 against a loss
  const brier = (column: SQL) =>
    sql`case when s.status = 'void_refunded' or ${column} is null then null
          else power(${column}::numeric / 100 - (case when s.status = 'won' then 1 else 0 end), 2)::float8 end`;
  const batch = input.batch ?? PM_SETTLE_BATCH;
  if (input.voidReason === 'market_unresolved') {
    // The ingest (another job, or another process) may have stored the venue's resolution since the
    // caller listed this market as unresolved: then it is paid as resolved on the next run, never
    // refunded. The share lock waits for an ingest writing the row now.
    const [market] = await queryRows<{ unresolved: boolean }>(
      tx,
      sql`select resolution_state is null as unresolved from pm_markets where source = ${input.source} and slug = ${input.slug} for share`,
    );
    if (!market?.unresolved) return 0;
  }
  // Wallets first, in id order, as every other writer takes them (a trade: its wallet, then its
  // position; the futures risk sweep: its batch's wallets ascending): locked in the order of a
  // grouping below, a settlement and a sweep deadlocked on PostgreSQL. The batch is exactly the
  // positions read here, so every wallet it moves is one locked first.
  const open = await queryRows<{ id: number; walletId: number }>(
    tx,
    sql`select id::float8 as id, wallet_id as "walletId" from pm_positions
        where source = ${input.source} and event_slug = ${input.slug} and status = 'open' order by id limit ${batch}`,
  );
  if (open.length === 0) return 0;
  const walletIds = [...new Set(open.map((p) => p.walletId))];
  await tx.execute(sql`select id from wallets where id = any(${`{${walletIds.join(',')}}`}::int[]) order by id for update`);
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`with picked as (
          select id from pm_positions where id = any(${`{${open.map((p) => p.id).join(',')}}`}::bigint[]) and status = 'open'
          order by id for update
        ), s as (
          update pm_positions p set status = ${status},
            settlement_state = ${winner === null ? 'voided' : 'settled'},
            void_reason = ${winner === null ? (input.voidReason ?? 'market_voided') : null},
            payout_musd = ${payout}, pnl_musd = ${payout} - p.stake_musd,
            settled_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
          from picked where p.id = picked.id
          returning p.id, p.key_id, p.wallet_id, p.side, p.source, p.event_slug, p.outcome_label, p.stake_musd, p.payout_musd, p.pnl_musd, p.status
        ), w as (
          update wallets w set cash_frozen_pm = w.cash_frozen_pm - a.stake, cash_available = w.cash_available + a.payout
          from (select wallet_id, sum(stake_musd) as stake, sum(payout_musd) as payout from s group by wallet_id) a
          where w.id = a.wallet_id returning w.id
        ), j as (
          insert into journal_postings (wallet_id, coin_id, bucket, amount, reason, ref_type, ref_id, created_at)
          select wallet_id, ${CASH_COIN_ID}, 'frozenPm', -stake_musd, 'pm_settlement', 'pm_position', id::text, ${now}::timestamptz from s
          union all
          select wallet_id, ${CASH_COIN_ID}, 'available', payout_musd, case when status = 'void_refunded' then 'pm_void_refund' else 'pm_payout' end,
            'pm_position', id::text, ${now}::timestamptz from s where payout_musd > 0
          returning 1
        ), t as (
          insert into closed_trades (key_id, wallet_id, venue, side, market, outcome, realized_pnl, closed_at, ref_type, ref_id, detail)
          select key_id, wallet_id, 'pm', side, source || '/' || event_slug, outcome_label,
            case when status = 'void_refunded' then null else pnl_musd end, ${now}::timestamptz, 'pm_position', id::text,
            jsonb_build_object('positionId', id, 'status', status, 'stakeMusd', stake_musd, 'payoutMusd', payout_musd)
          from s returning 1
        ), d as (
          update arena_decisions d set
            settlement_label = case s.status when 'won' then 'won' when 'lost' then 'lost' else 'void' end,
            settled_at = ${now}::timestamptz, pnl_musd = s.pnl_musd,
            brier = ${brier(sql`d.market_probability`)}, agent_brier = ${brier(sql`d.agent_forecast_probability`)}
          from s where d.position_id = s.id::text returning 1
        )
        select (select count(*) from s)::int as n, (select count(*) from w)::int as w, (select count(*) from j)::int as j,
          (select count(*) from t)::int as t, (select count(*) from d)::int as d`,
  );
  return row?.n ?? 0;
}

/** Public agents holding a market (event detail `agentsTradingMarket`). */
export async function publicHoldersOfMarket(db: Queryable, source: string, slug: string) {
  return queryRows<{ keyId: number; agentName: string | null; model: string | null; side: string; chosenOutcome: string; openedAt: string }>(
    db,
    sql`select k.id as "keyId", k.agent_name as "agentName", k.agent_model as model, p.side, p.outcome_label as "chosenOutcome",
          to_char(p.opened_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "openedAt"
        from pm_positions p join api_keys k on k.id = p.key_id
        where p.source = ${source} and p.event_slug = ${slug} and p.status = 'open' and k.is_public and k.revoked_at is null
        order by p.id limit 50`,
  );
}

/**
 * Serializes self-reports of one (key, client decisionId) and returns the uuid of the
 * record already kept for it, if any (opportunity dedup, supplement 1.11).
 */
export async function lockAndFindOpportunity(tx: Tx, keyId: number, sentDecisionId: string): Promise<string | null> {
  const decisionId = redactApiKeys(sentDecisionId); // as the record keeps it (arena-decisions-repo)
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`pm-opportunity:${keyId}:${decisionId}`}))`);
  const [row] = await queryRows<{ uuid: string }>(
    tx,
    sql`select decision_uuid::text as uuid from arena_decisions
        where key_id = ${keyId} and client_decision_id = ${decisionId} and opportunity_kind in ('abstained', 'forecast_only', 'quote_expired')
        order by id limit 1`,
  );
  return row?.uuid ?? null;
}

/** Open positions of public, unrevoked agents on one market (supplement 2.16: public agents only). */
export async function countOpenPositionsOfMarket(db: Queryable, source: string, slug: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pm_positions p join api_keys k on k.id = p.key_id
        where p.source = ${source} and p.event_slug = ${slug} and p.status = 'open' and k.is_public and k.revoked_at is null`,
  );
  return row?.n ?? 0;
}
