/** SQL of the prediction-market research data (migration 0005). */
import { and, desc, eq, getTableColumns, gt, inArray, isNotNull, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';
import { pmCaptures, pmMarkets, pmStreamEvents, pmVenueHealth, pmWhaleTrades } from './schema.js';

export type PmMarketRow = typeof pmMarkets.$inferSelect;
export type NewPmMarketRow = typeof pmMarkets.$inferInsert;
/** What a cluster member votes with in the cross-venue consensus (src/pm/read-model.ts); paper_pm_cluster reads just these. */
export type ClusterMember = Pick<PmMarketRow, 'source' | 'liquidity' | 'status' | 'orientation' | 'outcomes'>;
export type PmCaptureRow = typeof pmCaptures.$inferInsert;
export type PmWhaleRow = typeof pmWhaleTrades.$inferSelect;

export const PM_STREAM_CHANNEL = 'pm_stream';
const CHUNK = 500;

function chunks<T>(rows: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}


const snake = (k: string) => k.replace(/[A-Z0-9]+/g, (c) => `_${c.toLowerCase()}`).replace('volume_24h', 'volume24h').replace('price_change_24h', 'price_change_24h');
function toJsonRows(rows: Record<string, unknown>[]): string {
  return JSON.stringify(
    rows.map((r) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) o[snake(k)] = v instanceof Date ? v.toISOString() : v;
      return o;
    }),
  );
}

/** One INSERT … SELECT from jsonb_populate_recordset per chunk: PGlite parses one JSON value far faster than wide VALUES lists. */
async function bulkInsert(db: Queryable, table: string, rows: Record<string, unknown>[], onConflict: string): Promise<string[]> {
  const ids: string[] = [];
  for (const part of chunks(rows, 1000)) {
    const columns = Object.keys(part[0]!).map(snake).join(', ');
    const result = await queryRows<{ id?: string }>(
      db,
      sql.join([
        sql.raw(`insert into ${table} (${columns}) select ${columns} from jsonb_populate_recordset(null::${table}, `),
        sql`${toJsonRows(part)}::jsonb`,
        sql.raw(`) ${onConflict}`),
      ]),
    );
    for (const r of result) if (r.id !== undefined) ids.push(r.id);
  }
  return ids;
}

/**
 * Writes the latest state of markets. A resolution, once stored, is final: later
 * snapshots never overwrite it (nor reopen the market).
 */
export async function upsertPmMarkets(db: Queryable, rows: NewPmMarketRow[]): Promise<void> {
  if (rows.length === 0) return;
  const x = (c: string) => `${c} = excluded.${c}`;
  const keep = (c: string) => `${c} = case when pm_markets.resolution_state is null then excluded.${c} else pm_markets.${c} end`;
  const set = [
    ...['title', 'description', 'outcomes', 'volume', 'volume24h', 'liquidity', 'price_change_24h', 'price_change_7d', 'end_at', 'spark', 'updated_at'].map(x),
    ...['status', 'resolution_state', 'resolved_at', 'resolved_at_verified', 'winner_external_id', 'resolution_basis'].map(keep),
    'closed_at = coalesce(pm_markets.closed_at, excluded.closed_at)',
    'final_probabilities = coalesce(pm_markets.final_probabilities, excluded.final_probabilities)',
    'lead_probabilities = coalesce(pm_markets.lead_probabilities, excluded.lead_probabilities)',
    'last_capture_at = greatest(pm_markets.last_capture_at, excluded.last_capture_at)',
  ];
  // The database assigns a market's integer id and first-seen time; a row copied from a read never carries them over.
  const full = rows.map((r) => {
    const { eventId: _id, firstSeenAt: _seen, ...fields } = r as NewPmMarketRow & { eventId?: unknown; firstSeenAt?: unknown };
    return { canonicalKey: null, orientation: null, matchConfidence: null, matchBasis: null, ...fields };
  });
  await bulkInsert(db, 'pm_markets', full as Record<string, unknown>[], `on conflict (source, slug) do update set ${set.join(', ')}`);
}

export async function insertPmCaptures(db: Queryable, rows: PmCaptureRow[]): Promise<void> {
  if (rows.length > 0) await bulkInsert(db, 'pm_captures', rows as Record<string, unknown>[], 'on conflict do nothing');
}

/** Inserts large prints; returns the ids that were new (so each is pushed once). */
export async function insertPmWhales(db: Queryable, rows: (typeof pmWhaleTrades.$inferInsert)[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  return new Set(await bulkInsert(db, 'pm_whale_trades', rows as Record<string, unknown>[], 'on conflict do nothing returning id'));
}

export async function countPmMarkets(db: Queryable): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from pm_markets`);
  return row?.n ?? 0;
}

export async function loadPmMarkets(db: Queryable): Promise<PmMarketRow[]> {
  return db.select().from(pmMarkets);
}

/** One market, by venue and slug (PM trading reads it straight from the database; paper_pm_market, migration 0024). */
export async function loadPmMarket(db: Queryable, source: string, slug: string): Promise<PmMarketRow | null> {
  const [row] = await queryRows<{ r: Record<string, unknown> | null }>(db, sql`select paper_pm_market(${source}, ${slug}) as r`);
  return row?.r ? pmMarketFromJson(row.r) : null;
}

/** One market and the voting members of its cross-venue cluster, itself included, in one round trip (paper_pm_cluster, migration 0028). */
export async function loadPmMarketWithCluster(db: Queryable, source: string, slug: string): Promise<{ market: PmMarketRow; cluster: ClusterMember[] } | null> {
  const [row] = await queryRows<{ r: Record<string, unknown> | null; c: ClusterMember[] | null }>(
    db,
    sql`select paper_pm_market(${source}, ${slug}) as r, paper_pm_cluster(${source}, ${slug}) as c`,
  );
  return row?.r ? { market: pmMarketFromJson(row.r), cluster: row.c ?? [] } : null;
}

const marketColumns = Object.entries(getTableColumns(pmMarkets));

/** A market row as `row_to_json` gives it (paper_pm_market), mapped by the table's own column mappers. */
export function pmMarketFromJson(json: Record<string, unknown>): PmMarketRow {
  const row: Record<string, unknown> = {};
  for (const [field, column] of marketColumns) {
    const value = json[column.name];
    // jsonb arrives parsed: the column's mapper would re-parse a string value
    row[field] = value === null || value === undefined || column.columnType === 'PgJsonb' ? (value ?? null) : column.mapFromDriverValue(value);
  }
  return row as PmMarketRow;
}

/** The last 7 days of captures of the given markets, for sparklines and changes. */
export async function recentLeaderPoints(db: Queryable, keys: { source: string; slug: string }[], sinceMs: number): Promise<Map<string, [number, number][]>> {
  const out = new Map<string, [number, number][]>();
  if (keys.length === 0) return out;
  const rows = await queryRows<{ source: string; slug: string; t: string; p: number }>(
    db,
    sql`select source, slug, (extract(epoch from captured_at) * 1000)::bigint as t, leader_p as p
        from pm_captures where captured_at > ${new Date(sinceMs).toISOString()}::timestamptz
        and (source || '/' || slug) in (${sql.join(keys.map((k) => sql`${`${k.source}/${k.slug}`}`), sql`, `)})
        order by captured_at`,
  );
  for (const r of rows) {
    const key = `${r.source}/${r.slug}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push([Number(r.t), r.p]);
  }
  return out;
}

/** Captured probability of outcome `index` (0..1) in a window, oldest first. */
export async function capturePoints(db: Queryable, source: string, slug: string, fromMs: number, toMs: number, index: number): Promise<{ t: number; p: number }[]> {
  const rows = await queryRows<{ t: string; p: number | string | null }>(
    db,
    sql`select (extract(epoch from captured_at) * 1000)::bigint as t, (probabilities ->> ${index}::int)::double precision as p from pm_captures
        where source = ${source} and slug = ${slug} and captured_at >= ${new Date(fromMs).toISOString()}::timestamptz
        and captured_at <= ${new Date(toMs).toISOString()}::timestamptz order by captured_at`,
  );
  return rows.filter((r) => r.p !== null).map((r) => ({ t: Number(r.t), p: Math.round(Number(r.p) * 10) / 1000 }));
}

/** Daily volume points from our captures (the last capture of each UTC day). */
export async function dailyVolumes(db: Queryable, source: string, slug: string): Promise<{ date: string; volume: number; volume24h: number }[]> {
  return queryRows(
    db,
    sql`select distinct on (d) d as date, volume, volume24h from (
          select to_char(captured_at at time zone 'UTC', 'YYYY-MM-DD') as d, captured_at, volume, volume24h
          from pm_captures where source = ${source} and slug = ${slug}) x
        order by d, captured_at desc`,
  );
}

/** Our last capture before each resolved market closed (calibration `ownCapture`). */
export async function lastCapturesBeforeClose(db: Queryable): Promise<
  { source: string; slug: string; probabilities: number[]; capturedAt: Date; closedAt: Date; winner: string | null; outcomes: unknown }[]
> {
  const rows = await queryRows<{ source: string; slug: string; probabilities: number[]; captured_at: string; closed_at: string; winner: string | null; outcomes: unknown }>(
    db,
    sql`select distinct on (m.source, m.slug) m.source, m.slug, c.probabilities, c.captured_at, coalesce(m.closed_at, m.resolved_at) as closed_at,
          m.winner_external_id as winner, m.outcomes
        from pm_markets m join pm_captures c on c.source = m.source and c.slug = m.slug
        where m.resolution_state = 'resolved' and c.captured_at <= coalesce(m.closed_at, m.resolved_at)
        order by m.source, m.slug, c.captured_at desc`,
  );
  return rows.map((r) => ({
    source: r.source,
    slug: r.slug,
    probabilities: typeof r.probabilities === 'string' ? JSON.parse(r.probabilities) : r.probabilities,
    capturedAt: new Date(r.captured_at),
    closedAt: new Date(r.closed_at),
    winner: r.winner,
    outcomes: typeof r.outcomes === 'string' ? JSON.parse(r.outcomes) : r.outcomes,
  }));
}

/** The newest large trades: of one market, or of the named venues (filtered before the limit, so the tape stays full). */
export async function recentWhales(db: Queryable, limit: number, from: { source: string; slug: string } | { sources: string[] }): Promise<PmWhaleRow[]> {
  const where =
    'sources' in from ? inArray(pmWhaleTrades.source, from.sources) : and(eq(pmWhaleTrades.source, from.source), eq(pmWhaleTrades.slug, from.slug));
  return db.select().from(pmWhaleTrades).where(where).orderBy(desc(pmWhaleTrades.tradedAt), desc(pmWhaleTrades.id)).limit(limit);
}

export async function whalesByIds(db: Queryable, ids: string[]): Promise<PmWhaleRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(pmWhaleTrades).where(inArray(pmWhaleTrades.id, ids)).orderBy(desc(pmWhaleTrades.tradedAt));
}

export async function recordVenueAttempt(db: Queryable, source: string, mode: string, atMs: number, error: string | null): Promise<void> {
  const at = new Date(atMs);
  await db
    .insert(pmVenueHealth)
    .values({ source, mode, lastAttemptAt: at, lastSuccessAt: error ? null : at, lastError: error, consecutiveFailures: error ? 1 : 0 })
    .onConflictDoUpdate({
      target: pmVenueHealth.source,
      set: error
        ? { mode, lastAttemptAt: at, lastError: error, consecutiveFailures: sql`pm_venue_health.consecutive_failures + 1` }
        : { mode, lastAttemptAt: at, lastSuccessAt: at, lastError: null, consecutiveFailures: 0 },
    });
}

export async function venueHealth(db: Queryable): Promise<(typeof pmVenueHealth.$inferSelect)[]> {
  return db.select().from(pmVenueHealth);
}

/** Sets cross-venue cluster membership (canonical key, orientation) computed by the matcher. */
export async function setPmClusters(
  db: Queryable,
  rows: { source: string; slug: string; canonicalKey: string | null; orientation: string | null; confidence: number | null; basis: string | null }[],
): Promise<void> {
  for (const part of chunks(rows)) {
    const values = sql.join(
      part.map((r) => sql`(${r.source}, ${r.slug}, ${r.canonicalKey}, ${r.orientation}, ${r.confidence}::double precision, ${r.basis})`),
      sql`, `,
    );
    await db.execute(sql`update pm_markets m set canonical_key = v.k, orientation = v.o, match_confidence = v.c, match_basis = v.b
      from (values ${values}) as v(s, g, k, o, c, b) where m.source = v.s and m.slug = v.g`);
  }
}

/** Stores a resolution unless one exists; returns whether this call resolved the market. */
export async function resolvePmMarket(
  db: Queryable,
  r: { source: string; slug: string; state: 'resolved' | 'voided'; winnerExternalId: string | null; resolvedAtMs: number; verified: boolean; basis: string },
): Promise<boolean> {
  const at = new Date(r.resolvedAtMs);
  const updated = await db
    .update(pmMarkets)
    .set({
      status: 'closed',
      closedAt: sql`coalesce(${pmMarkets.closedAt}, ${at.toISOString()}::timestamptz)`,
      resolutionState: r.state,
      resolvedAt: at,
      resolvedAtVerified: r.verified,
      winnerExternalId: r.winnerExternalId,
      resolutionBasis: r.basis,
      updatedAt: at,
    })
    .where(and(eq(pmMarkets.source, r.source), eq(pmMarkets.slug, r.slug), sql`${pmMarkets.resolutionState} is null`))
    .returning({ slug: pmMarkets.slug });
  return updated.length > 0;
}

/** Appends an SSE event and tells every API process (NOTIFY carries only the id). */
export async function publishPmStreamEvent(db: Queryable, kind: string, payload: unknown, atMs: number): Promise<number> {
  const [row] = await db
    .insert(pmStreamEvents)
    .values({ kind, payload, createdAt: new Date(atMs) })
    .returning({ id: pmStreamEvents.id });
  await db.execute(sql`select pg_notify(${PM_STREAM_CHANNEL}, ${String(row!.id)})`);
  return row!.id;
}

export async function pmStreamEventsAfter(db: Queryable, afterId: number, limit: number): Promise<(typeof pmStreamEvents.$inferSelect)[]> {
  return db.select().from(pmStreamEvents).where(gt(pmStreamEvents.id, afterId)).orderBy(pmStreamEvents.id).limit(limit);
}

export async function latestPmStreamEvents(db: Queryable, limit: number): Promise<(typeof pmStreamEvents.$inferSelect)[]> {
  const rows = await db.select().from(pmStreamEvents).orderBy(desc(pmStreamEvents.id)).limit(limit);
  return rows.reverse();
}

export async function prunePmStreamEvents(db: Queryable, beforeMs: number): Promise<void> {
  await db.execute(sql`delete from pm_stream_events where created_at < ${new Date(beforeMs).toISOString()}::timestamptz`);
}

export async function prunePmCaptures(db: Queryable, beforeMs: number): Promise<void> {
  await db.execute(sql`delete from pm_captures where captured_at < ${new Date(beforeMs).toISOString()}::timestamptz`);
}

export const resolvedMarketsExist = (db: Queryable) => db.select({ slug: pmMarkets.slug }).from(pmMarkets).where(isNotNull(pmMarkets.resolutionState)).limit(1);

/** Fast profile housekeeping: drops settled flash markets (market id ending in -f<n>) and their captures. */
export async function pruneSettledFlashMarkets(db: Queryable, beforeMs: number): Promise<{ source: string; slug: string }[]> {
  const cutoff = new Date(beforeMs).toISOString();
  const gone = await queryRows<{ source: string; slug: string }>(
    db,
    // a market with open paper positions stays until settlement has paid them (it finds them through the market)
    sql`delete from pm_markets m where m.resolution_state is not null and m.resolved_at < ${cutoff}::timestamptz and m.market_id ~ '-f[0-9]+$'
          and not exists (select 1 from pm_positions p where p.source = m.source and p.event_slug = m.slug and p.status = 'open')
        returning m.source, m.slug`,
  );
  if (gone.length > 0) {
    await db.execute(sql`delete from pm_captures c where c.captured_at < ${cutoff}::timestamptz
      and not exists (select 1 from pm_markets m where m.source = c.source and m.slug = c.slug)`);
  }
  return gone;
}

/** A cheap change marker for the read model: rows and the latest update. */
export async function pmMarketsVersion(db: Queryable): Promise<string> {
  const [row] = await queryRows<{ v: string }>(db, sql`select count(*)::text || '/' || coalesce(max(updated_at)::text, '') || '/' || count(resolution_state)::text || '/' || count(canonical_key)::text as v from pm_markets`);
  return row?.v ?? '';
}

/**
 * What readiness needs of the PM data: an open market exists, which venues have captured
 * history, and which of them failed their last fetch (consecutive failures > 0).
 */
export async function pmDataPresence(
  db: Queryable,
  historySources: readonly string[],
): Promise<{ openMarkets: boolean; historySources: string[]; failingSources: string[] }> {
  const sources = `{${historySources.join(',')}}`;
  const [row] = await queryRows<{ open: boolean; sources: string[] | null; failing: string[] | null }>(
    db,
    sql`select exists (select 1 from pm_markets where status = 'open') as open,
          array(select s from unnest(${sources}::text[]) s where exists (select 1 from pm_captures c where c.source = s)) as sources,
          array(select h.source from pm_venue_health h where h.source = any(${sources}::text[]) and h.consecutive_failures > 0) as failing`,
  );
  return { openMarkets: Boolean(row?.open), historySources: row?.sources ?? [], failingSources: row?.failing ?? [] };
}
