import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/** Realized PnL of every realized trade of a key, oldest first, and its total trade count. */
export interface TrackAFacts {
  realized: number[];
  tradeCount: number;
  /** Futures positions the key opened, and those that carried a stop-loss (still set, or hit). */
  futuresOpens: number;
  futuresOpensWithStop: number;
}

export async function loadTrackAFacts(db: Queryable, keyId: number): Promise<TrackAFacts> {
  const rows = await queryRows<{ pnl: string }>(
    db,
    sql`select realized_pnl::text as pnl from closed_trades where key_id = ${keyId} and realized_pnl is not null order by closed_at, id`,
  );
  const [counts] = await queryRows<{ n: number; opens: number; withStop: number }>(
    db,
    sql`select (select coalesce(sum(trade_count), 0)::int from arena_agent_totals where key_id = ${keyId}) as n,
          f.opens, f."withStop"
        from (select count(*)::int as opens,
                count(*) filter (where stop_loss_price is not null or exit_reason = 'stop_loss')::int as "withStop"
              from futures_positions where key_id = ${keyId}) f`,
  );
  return { realized: rows.map((r) => Number(r.pnl)), tradeCount: counts!.n, futuresOpens: counts!.opens, futuresOpensWithStop: counts!.withStop };
}

export interface NewRun {
  keyId: number;
  agent: string;
  computedAtMs: number;
  evaluationPolicyVersion: string;
  executionPolicyVersion: string;
  windowKey: string | null;
  inputCount: number;
  forecastedCount: number;
  settledForecastCount: number;
  cohort: unknown;
  resultJson: unknown;
  contentHash: string;
  metricsHash: string;
  contributions: unknown;
}

/** A stored run: what was inserted, with its id and the computation time as a timestamp. */
export type RunRow = Omit<NewRun, 'computedAtMs'> & { id: number; computedAt: string };

const compact = sql`r.id::float8 as id, r.key_id as "keyId", r.agent,
  to_char(r.computed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "computedAt",
  r.evaluation_policy_version as "evaluationPolicyVersion", r.execution_policy_version as "executionPolicyVersion",
  r.window_key as "windowKey", r.input_count as "inputCount", r.forecasted_count as "forecastedCount",
  r.settled_forecast_count as "settledForecastCount", r.content_hash as "contentHash", r.metrics_hash as "metricsHash"`;

export async function insertRun(db: Queryable, run: NewRun): Promise<number> {
  const [row] = await queryRows<{ id: string | number }>(
    db,
    sql`insert into arena_scorecard_runs (key_id, agent, computed_at, evaluation_policy_version, execution_policy_version, window_key,
          input_count, forecasted_count, settled_forecast_count, cohort, result_json, content_hash, metrics_hash, contributions)
        values (${run.keyId}, ${run.agent}, ${new Date(run.computedAtMs).toISOString()}::timestamptz, ${run.evaluationPolicyVersion},
          ${run.executionPolicyVersion}, ${run.windowKey}, ${run.inputCount}, ${run.forecastedCount}, ${run.settledForecastCount},
          ${JSON.stringify(run.cohort)}::jsonb, ${JSON.stringify(run.resultJson)}::jsonb, ${run.contentHash}, ${run.metricsHash},
          ${JSON.stringify(run.contributions)}::jsonb)
        returning id`,
  );
  return Number(row!.id);
}

export async function latestRunOf(db: Queryable, keyId: number): Promise<RunRow | null> {
  const rows = await queryRows<RunRow>(db, sql`select ${compact} from arena_scorecard_runs r where r.key_id = ${keyId} order by r.id desc limit 1`);
  return rows[0] ?? null;
}

/** Runs of a key with id < before, newest first (limit + 1 to see whether more exist). */
export async function listRunsOf(db: Queryable, keyId: number, before: number | null, limit: number): Promise<RunRow[]> {
  const upper = before === null ? sql`true` : sql`r.id < ${before}`;
  return queryRows<RunRow>(
    db,
    sql`select ${compact} from arena_scorecard_runs r where r.key_id = ${keyId} and ${upper} order by r.id desc limit ${limit + 1}`,
  );
}

/** A full run whose agent is public and unrevoked now. */
export async function findPublicRun(db: Queryable, id: number): Promise<RunRow | null> {
  const rows = await queryRows<RunRow>(
    db,
    sql`select ${compact}, r.cohort, r.result_json as "resultJson", r.contributions from arena_scorecard_runs r
        join api_keys k on k.id = r.key_id where r.id = ${id} and k.is_public and k.revoked_at is null`,
  );
  return rows[0] ?? null;
}

/** Public agents with any trade or decision: the ones a run could say something about. */
export async function listScorecardCandidates(db: Queryable): Promise<{ keyId: number; agentName: string | null }[]> {
  return queryRows(
    db,
    sql`select k.id as "keyId", k.agent_name as "agentName" from api_keys k
        where k.is_public and k.revoked_at is null
          and (exists (select 1 from arena_agent_totals t where t.key_id = k.id)
            or exists (select 1 from arena_decisions d where d.key_id = k.id and d.opportunity_kind = 'opened'))
        order by k.id`,
  );
}
