import { sql } from 'drizzle-orm';
import { emptyVenueCounts, type ArenaVenue, type VenueCounts } from '../arena/stats.js';
import type { DayPnl } from '../arena/sparkline.js';
import { queryRows, type Queryable } from './db.js';

export interface PublicAgent {
  keyId: number;
  agentName: string | null;
  agentModel: string | null;
}

export interface AllTimeAgent extends PublicAgent {
  venues: VenueCounts;
  biggestWin: number;
  firstTradeAtMs: number | null;
  lastTradeAtMs: number | null;
}

interface VenueRow {
  keyId: number;
  venue: ArenaVenue;
  pnl: string;
  trades: number;
  wins: number;
  losses: number;
  neutrals: number;
}

function foldVenueRows(rows: VenueRow[]): Map<number, VenueCounts> {
  const map = new Map<number, VenueCounts>();
  for (const r of rows) {
    let v = map.get(r.keyId);
    if (!v) map.set(r.keyId, (v = emptyVenueCounts()));
    const c = v[r.venue];
    c.pnl += Number(r.pnl);
    c.trades += r.trades;
    c.wins += r.wins;
    c.losses += r.losses;
    c.neutrals += r.neutrals;
  }
  return map;
}

const publicKeyFilter = sql`k.is_public and k.revoked_at is null`;

/** Changes whenever a trade lands or a key changes (publish, rename, revoke): two index reads. */
export async function boardFingerprint(db: Queryable): Promise<string> {
  const [row] = await queryRows<{ t: string | number; k: string | number }>(
    db,
    sql`select (select coalesce(max(id), 0) from closed_trades) as t, (select version from arena_identity_version where id = 1) as k`,
  );
  return `${row?.t}:${row?.k}`;
}

/** Every public, unrevoked agent with its all-time aggregates (zeros without trades). */
export async function loadAllTimeAgents(db: Queryable): Promise<AllTimeAgent[]> {
  const keys = await queryRows<PublicAgent>(
    db,
    sql`select k.id as "keyId", k.agent_name as "agentName", k.agent_model as "agentModel" from api_keys k where ${publicKeyFilter}`,
  );
  const totals = await queryRows<VenueRow & { biggest: string; first: number; last: number }>(
    db,
    sql`select t.key_id as "keyId", t.venue, t.realized_pnl::text as pnl, t.trade_count as trades, t.win_count as wins,
          t.loss_count as losses, t.neutral_count as neutrals, t.biggest_win::text as biggest,
          (extract(epoch from t.first_trade_at) * 1000)::float8 as first, (extract(epoch from t.last_trade_at) * 1000)::float8 as last
        from arena_agent_totals t join api_keys k on k.id = t.key_id where ${publicKeyFilter}`,
  );
  const venues = foldVenueRows(totals);
  const extra = new Map<number, { biggest: number; first: number; last: number }>();
  for (const t of totals) {
    const e = extra.get(t.keyId);
    const biggest = Number(t.biggest);
    if (!e) extra.set(t.keyId, { biggest, first: Number(t.first), last: Number(t.last) });
    else {
      e.biggest = Math.max(e.biggest, biggest);
      e.first = Math.min(e.first, Number(t.first));
      e.last = Math.max(e.last, Number(t.last));
    }
  }
  return keys.map((k) => {
    const e = extra.get(k.keyId);
    return {
      ...k,
      venues: venues.get(k.keyId) ?? emptyVenueCounts(),
      biggestWin: e?.biggest ?? 0,
      firstTradeAtMs: e?.first ?? null,
      lastTradeAtMs: e?.last ?? null,
    };
  });
}

/** Per-agent counters over whole UTC days from `fromDay` (public agents only). */
export async function loadDayWindowCounts(db: Queryable, fromDay: string): Promise<Map<number, VenueCounts>> {
  return foldVenueRows(
    await queryRows<VenueRow>(
      db,
      sql`select d.key_id as "keyId", d.venue, sum(d.realized_pnl)::text as pnl, sum(d.trade_count)::int as trades,
            sum(d.win_count)::int as wins, sum(d.loss_count)::int as losses, sum(d.neutral_count)::int as neutrals
          from arena_agent_days d join api_keys k on k.id = d.key_id
          where d.day >= ${fromDay}::date and ${publicKeyFilter}
          group by d.key_id, d.venue`,
    ),
  );
}

/** Per-agent counters of trades closed at or after `fromMs` (rolling windows), optionally up to `toMs`. */
export async function loadTradeWindowCounts(
  db: Queryable,
  fromMs: number,
  toMs: number | null = null,
  keyIds: number[] | null = null,
): Promise<Map<number, VenueCounts>> {
  const upper = toMs === null ? sql`true` : sql`c.closed_at <= ${new Date(toMs).toISOString()}::timestamptz`;
  const only = keyIds === null ? sql`${publicKeyFilter}` : sql`c.key_id = any(${`{${keyIds.join(',')}}`}::int[])`;
  return foldVenueRows(
    await queryRows<VenueRow>(
      db,
      sql`select c.key_id as "keyId", c.venue, coalesce(sum(c.realized_pnl), 0)::text as pnl, count(*)::int as trades,
            count(*) filter (where c.realized_pnl > 0)::int as wins, count(*) filter (where c.realized_pnl < 0)::int as losses,
            count(*) filter (where c.realized_pnl = 0)::int as neutrals
          from closed_trades c join api_keys k on k.id = c.key_id
          where c.closed_at >= ${new Date(fromMs).toISOString()}::timestamptz and ${upper} and ${only}
          group by c.key_id, c.venue`,
    ),
  );
}

/** Daily realized PnL of a few agents from the day aggregates. */
export async function loadDayPnl(db: Queryable, keyIds: number[], fromDay: string): Promise<Map<number, DayPnl[]>> {
  if (keyIds.length === 0) return new Map();
  const rows = await queryRows<{ keyId: number; day: string; pnl: string; realized: number }>(
    db,
    sql`select key_id as "keyId", day::text as day, sum(realized_pnl)::text as pnl,
          sum(win_count + loss_count + neutral_count)::int as realized
        from arena_agent_days where key_id = any(${`{${keyIds.join(',')}}`}::int[]) and day >= ${fromDay}::date
        group by key_id, day`,
  );
  return groupDays(rows);
}

/** Daily realized PnL of a few agents from trades inside [fromMs, toMs]. */
export async function loadTradeDayPnl(db: Queryable, keyIds: number[], fromMs: number, toMs: number): Promise<Map<number, DayPnl[]>> {
  if (keyIds.length === 0) return new Map();
  const rows = await queryRows<{ keyId: number; day: string; pnl: string; realized: number }>(
    db,
    sql`select key_id as "keyId", (closed_at at time zone 'UTC')::date::text as day, coalesce(sum(realized_pnl), 0)::text as pnl,
          count(realized_pnl)::int as realized
        from closed_trades where key_id = any(${`{${keyIds.join(',')}}`}::int[])
          and closed_at >= ${new Date(fromMs).toISOString()}::timestamptz and closed_at <= ${new Date(toMs).toISOString()}::timestamptz
        group by 1, 2`,
  );
  return groupDays(rows);
}

function groupDays(rows: { keyId: number; day: string; pnl: string; realized: number }[]): Map<number, DayPnl[]> {
  const map = new Map<number, DayPnl[]>();
  for (const r of rows) {
    const list = map.get(r.keyId) ?? [];
    list.push({ day: r.day, pnl: Number(r.pnl), realized: r.realized > 0 });
    map.set(r.keyId, list);
  }
  return map;
}

/** A public, unrevoked key, or null. */
export async function findPublicAgent(db: Queryable, keyId: number): Promise<PublicAgent | null> {
  const rows = await queryRows<PublicAgent>(
    db,
    sql`select k.id as "keyId", k.agent_name as "agentName", k.agent_model as "agentModel" from api_keys k
        where k.id = ${keyId} and ${publicKeyFilter}`,
  );
  return rows[0] ?? null;
}

export async function insertRankSnapshot(db: Queryable, window: string, takenAtMs: number, keyIds: number[], ranks: number[]): Promise<void> {
  await db.execute(
    sql`insert into arena_rank_snapshots (board_window, taken_at, key_ids, ranks)
        values (${window}, ${new Date(takenAtMs).toISOString()}::timestamptz, ${`{${keyIds.join(',')}}`}::int[], ${`{${ranks.join(',')}}`}::int[])`,
  );
}

/** Id of the newest snapshot of a window taken at or before `atOrBeforeMs`. */
export async function findRankSnapshotId(db: Queryable, window: string, atOrBeforeMs: number): Promise<number | null> {
  const rows = await queryRows<{ id: string | number }>(
    db,
    sql`select id from arena_rank_snapshots where board_window = ${window} and taken_at <= ${new Date(atOrBeforeMs).toISOString()}::timestamptz
        order by taken_at desc limit 1`,
  );
  return rows[0] ? Number(rows[0].id) : null;
}

export async function loadRankSnapshot(db: Queryable, id: number): Promise<Map<number, number>> {
  const rows = await queryRows<{ keyIds: number[]; ranks: number[] }>(
    db,
    sql`select key_ids as "keyIds", ranks from arena_rank_snapshots where id = ${id}`,
  );
  const map = new Map<number, number>();
  const row = rows[0];
  if (row) row.keyIds.forEach((k, i) => map.set(Number(k), Number(row.ranks[i])));
  return map;
}

export async function pruneRankSnapshots(db: Queryable, beforeMs: number): Promise<void> {
  await db.execute(sql`delete from arena_rank_snapshots where taken_at < ${new Date(beforeMs).toISOString()}::timestamptz`);
}

/** The deployment's first-migration date (the contract's `independentWalletSince`). */
export async function firstMigrationDay(db: Queryable): Promise<string> {
  const rows = await queryRows<{ day: string | null }>(db, sql`select min(applied_at)::date::text as day from schema_migrations`);
  return rows[0]?.day ?? '1970-01-01';
}
