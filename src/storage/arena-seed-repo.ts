import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';

/**
 * Recomputes the Arena aggregates from the whole trade log (repair tool; also used after a
 * bulk load that bypassed the trigger). Same statements as the migration's back-fill.
 */
export async function rebuildArenaAggregates(db: Queryable): Promise<void> {
  await db.execute(sql`delete from arena_agent_totals`);
  await db.execute(sql`delete from arena_agent_days`);
  await db.execute(sql`insert into arena_agent_totals (key_id, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count,
      biggest_win, first_trade_at, last_trade_at)
    select key_id, venue, coalesce(sum(realized_pnl), 0), count(*)::int,
      count(*) filter (where realized_pnl > 0)::int, count(*) filter (where realized_pnl < 0)::int,
      count(*) filter (where realized_pnl = 0)::int, greatest(coalesce(max(realized_pnl), 0), 0), min(closed_at), max(closed_at)
    from closed_trades group by key_id, venue`);
  await db.execute(sql`insert into arena_agent_days (key_id, day, venue, realized_pnl, trade_count, win_count, loss_count, neutral_count)
    select key_id, (closed_at at time zone 'UTC')::date, venue, coalesce(sum(realized_pnl), 0), count(*)::int,
      count(*) filter (where realized_pnl > 0)::int, count(*) filter (where realized_pnl < 0)::int,
      count(*) filter (where realized_pnl = 0)::int
    from closed_trades group by 1, 2, 3`);
}

export interface BenchSeed {
  agents: number;
  trades: number;
  decisions: number;
  nowMs: number;
  /** Trades spread over this many days before now. */
  spanDays: number;
}

/**
 * Bench-only data generator: public agents with wallets, a bulk trade log (loaded with the
 * fold trigger off, then aggregated in one pass) and resolved PM decisions. Returns the first key id.
 */
export async function seedArenaBenchData(db: Queryable, s: BenchSeed): Promise<number> {
  const now = new Date(s.nowMs).toISOString();
  await db.execute(sql`insert into users (id) values ('bench-arena') on conflict do nothing`);
  await db.execute(sql`insert into api_keys (user_id, key_hash, key_prefix, scopes, agent_name, agent_model, is_public)
    select 'bench-arena', md5('bench-arena-' || g || '-' || random()), 'sk_live_bench', '{read}', 'bench agent ' || g, 'model-' || (g % 7), true
    from generate_series(1, ${s.agents}) g`);
  const [first] = await queryRows<{ id: number }>(db, sql`select min(id)::int as id from api_keys where user_id = 'bench-arena'`);
  const firstId = first!.id;
  await db.execute(sql`insert into wallets (key_id, cash_available) select id, 50000 from api_keys where user_id = 'bench-arena'`);
  await db.execute(sql`alter table closed_trades disable trigger closed_trades_arena_fold`);
  await db.execute(sql`insert into closed_trades (key_id, wallet_id, venue, side, realized_pnl, closed_at)
    select w.key_id, w.id, (array['spot', 'futures', 'pm'])[1 + (g % 3)], 'sell',
      case when g % 10 = 0 then null else round(((random() - 0.47) * 200)::numeric, 2) end,
      ${now}::timestamptz - (random() * ${s.spanDays} * interval '1 day')
    from generate_series(0, ${s.trades - 1}) g
    join wallets w on w.key_id = ${firstId} + (g % ${s.agents})`);
  await db.execute(sql`alter table closed_trades enable trigger closed_trades_arena_fold`);
  await rebuildArenaAggregates(db);
  await db.execute(sql`insert into arena_decisions (decision_uuid, schema_version, opportunity_kind, result, evaluation_policy_version,
      execution_policy_version, key_id, agent, agent_model, venue, event_title, event_slug, side, chosen_outcome,
      agent_forecast_probability, market_probability, reference_probability, edge_points, outcomes_count, stake_musd, shares_musd,
      position_id, created_at, content_hash, content_hash_fields, settlement_label, settled_at, pnl_musd, brier, agent_brier,
      decision_context)
    select gen_random_uuid(), 1, 'opened', 'pending', 'eval-1', 'paper_execution_v1', k, 'a' || k || '-bench-agent-' || (k - ${firstId} + 1),
      'model-1', 'sim-pm', 'Bench event ' || g, 'bench-event-' || g, 'yes', 'Yes', 55 + (g % 30), 50, 52, 5 + (g % 30), 2, 100, 200,
      'bench-pos-' || g, ${now}::timestamptz - interval '2 days', md5('h' || g) || md5('x' || g), '{decisionUuid}',
      case when g % 2 = 0 then 'won' else 'lost' end, ${now}::timestamptz - interval '1 day',
      case when g % 2 = 0 then 100 else -100 end, case when g % 2 = 0 then 0.25 else 0.25 end, 0.2,
      '{"v":1,"capturedAt":"2026-01-01T00:00:00.000Z","chosenProbability":50,"volume24h":1000,"liquidity":500,"spread":2,"bestBid":49,"bestAsk":51,"referenceProbability":52,"referenceVenueCount":2}'::jsonb
    from generate_series(1, ${s.decisions}) g, lateral (select ${firstId} + (g % 100) as k) kk`);
  // Fresh statistics, as autovacuum would gather after a load this size.
  await db.execute(sql`analyze`);
  return firstId;
}
