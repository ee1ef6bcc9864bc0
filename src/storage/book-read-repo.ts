/**
 * One round trip for an account read: the key's book (cash partitions) with whatever else the
 * route needs, each part a JSON sub-select over the same wallet row. Every part reads through
 * an index bounded by what is open or held now (or a running total), never by past orders.
 */
import { sql, type SQL } from 'drizzle-orm';
import { Decimal } from '../domain/money.js';
import type { Wallet } from './books-repo.js';
import { bookCacheOf, queryRows, type Queryable } from './db.js';
import type { HoldingRow } from './holdings-repo.js';

/** A JSON-valued SQL expression over the outer wallet row `w` (columns `w.id`, `w.key_id`). */
export type BookPart = SQL;

export interface BookRead<P extends string> {
  wallet: Wallet;
  parts: Record<P, unknown>;
}

const cacheKeys = new WeakMap<BookPart, string>();
let constantParts = 0;

/**
 * Marks a part the book cache may keep (src/storage/book-cache.ts): it reads only tables whose
 * changes migration 0017 signals (wallets, holdings, spot_orders, futures_positions,
 * pm_positions, closed_trades, account_totals, account_venue_totals, equity_snapshots), and
 * no prices. A read with any other part always goes to the database. `key` names the part's
 * SQL exactly — its builder and every argument (none for a constant part): reads are cached
 * under their parts' keys, so the SQL is not rebuilt to look one up.
 */
export function cacheable(part: BookPart, key = `#${(constantParts += 1)}`): BookPart {
  cacheKeys.set(part, key);
  return part;
}

/** The book of `keyId` with each named part; null when the key has no book yet. */
export async function readBook<P extends string>(db: Queryable, keyId: number, parts: Record<P, BookPart>): Promise<BookRead<P> | null> {
  const names = Object.keys(parts) as P[];
  const read = async () => {
    const columns = names.map((name) => sql`, ${parts[name]} as ${sql.identifier(name)}`);
    const [found] = await queryRows<Record<string, unknown>>(
      db,
      sql`select w.id, w.key_id as "keyId", w.cash_available::text as available, w.cash_frozen::text as frozen,
                 w.cash_frozen_pm::text as "frozenPm", w.cash_frozen_futures::text as "frozenFutures"${sql.join(columns, sql``)}
          from wallets w where w.key_id = ${keyId}`,
    );
    // null, not undefined: "no book yet" is cached like a row (creating the wallet signals the key)
    return found ?? null;
  };
  const cache = bookCacheOf(db);
  const cacheKey = cache ? partsKey(names, parts) : null;
  const row = cache && cacheKey !== null ? await cache.read(keyId, cacheKey, read) : await read();
  if (!row) return null;
  const wallet: Wallet = {
    id: Number(row.id),
    keyId: Number(row.keyId),
    available: new Decimal(row.available as string),
    frozen: new Decimal(row.frozen as string),
    frozenPm: new Decimal(row.frozenPm as string),
    frozenFutures: new Decimal(row.frozenFutures as string),
  };
  const out = {} as Record<P, unknown>;
  for (const name of names) out[name] = row[name];
  return { wallet, parts: out };
}

/** The cache key of a read: each part's name and key (null when a part is not cacheable). */
function partsKey<P extends string>(names: P[], parts: Record<P, BookPart>): string | null {
  let key = '';
  for (const name of names) {
    const part = cacheKeys.get(parts[name]);
    if (part === undefined) return null;
    key += `${name}=${part};`;
  }
  return key;
}

/** A part that is always null (a route's optional part, not asked for). */
export const noPart: BookPart = cacheable(sql`null`);

/** Every coin the book holds (available or frozen), by coin id. */
export const holdingsPart: BookPart = cacheable(sql`coalesce((
  select json_agg(json_build_object('coinId', h.coin_id, 'available', h.available::text, 'frozen', h.frozen::text,
                                    'avgCostUsd', h.avg_cost_usd::text) order by h.coin_id)
  from holdings h where h.wallet_id = w.id and (h.available > 0 or h.frozen > 0)), '[]'::json)`);

export function toHoldings(part: unknown): HoldingRow[] {
  return (part as { coinId: string; available: string; frozen: string; avgCostUsd: string }[]).map((h) => ({
    coinId: h.coinId,
    available: new Decimal(h.available),
    frozen: new Decimal(h.frozen),
    avgCostUsd: new Decimal(h.avgCostUsd),
  }));
}

/** One coin of the book (null when it never held it). */
export function holdingPart(coinId: string): BookPart {
  return cacheable(sql`(select json_build_object('available', h.available::text, 'frozen', h.frozen::text, 'avgCostUsd', h.avg_cost_usd::text)
              from holdings h where h.wallet_id = w.id and h.coin_id = ${coinId})`, `holding(${coinId})`);
}

/** Resting spot orders (open, triggered), most recently changed first (partial index on key + resting). */
export function restingOrdersPart(limit: number): BookPart {
  return cacheable(sql`coalesce((select json_agg(o) from (
    select id, side, order_type as "orderType", coin_id as "coinId", symbol, limit_price::text as "limitPrice",
           stop_price::text as "stopPrice", quantity::text as quantity, status
    from spot_orders where key_id = w.key_id and status in ('open', 'triggered')
    order by updated_at desc, id desc limit ${limit}) o), '[]'::json)`, `resting(${limit})`);
}

export interface RestingOrderPart {
  id: number;
  side: 'buy' | 'sell';
  orderType: 'limit' | 'stop';
  coinId: string;
  symbol: string | null;
  limitPrice: string;
  stopPrice: string | null;
  quantity: string;
  status: string;
}

/** The running totals the triggers of migration 0011 keep (zeros for a key without trades). */
export const accountTotalsPart: BookPart = cacheable(sql`(
  select json_build_object(
    'tradeRows', coalesce(max(t.trade_rows), 0), 'ordersPlaced', coalesce(max(t.orders_placed), 0),
    'decidedTrades', coalesce((select sum(decided_count) from account_venue_totals v where v.key_id = w.key_id), 0),
    'wins', coalesce((select sum(win_count) from account_venue_totals v where v.key_id = w.key_id), 0))
  from account_totals t where t.key_id = w.key_id)`);

export interface AccountTotalsPart {
  tradeRows: number;
  ordersPlaced: number;
  decidedTrades: number;
  wins: number;
}

export function toAccountTotals(part: unknown): AccountTotalsPart {
  const p = (part ?? {}) as Record<string, unknown>;
  return {
    tradeRows: Number(p.tradeRows ?? 0),
    ordersPlaced: Number(p.ordersPlaced ?? 0),
    decidedTrades: Number(p.decidedTrades ?? 0),
    wins: Number(p.wins ?? 0),
  };
}

/**
 * Per window start (an ISO instant): the book's equity as last recorded at or before it — the
 * later of its hourly snapshot (kept 26 h: the 24 h window) and its daily one taken by then —
 * or null (a book younger than the window, or never snapshotted). A daily row holds its day's
 * last value: the start day's own row was taken after the start and is not used (it made
 * "24 h" mean "since the end of yesterday", 5 minutes at 00:05 UTC).
 */
export function windowStartsPart(starts: string[]): BookPart {
  if (starts.length === 0) return cacheable(sql`'[]'::json`, 'starts()');
  const values = starts.map(
    (at) => sql`(select v.usd_value::text from (
        (select s.usd_value, s.taken_at from equity_snapshots_hourly s
         where s.key_id = w.key_id and s.hour <= ${at}::timestamptz and s.taken_at <= ${at}::timestamptz order by s.hour desc limit 1)
        union all
        (select s.usd_value, s.taken_at from equity_snapshots s
         where s.key_id = w.key_id and s.day <= ${at.slice(0, 10)}::date and s.taken_at <= ${at}::timestamptz order by s.day desc limit 1)
      ) v order by v.taken_at desc limit 1)`,
  );
  return cacheable(sql`json_build_array(${sql.join(values, sql`, `)})`, `starts(${starts.join(',')})`);
}

/** Daily equity snapshots from `fromDay` on, oldest first. */
export function snapshotsPart(fromDay: string): BookPart {
  return cacheable(sql`coalesce((select json_agg(json_build_object('day', to_char(s.day, 'YYYY-MM-DD'), 'usdValue', s.usd_value::text) order by s.day)
              from equity_snapshots s where s.key_id = w.key_id and s.day >= ${fromDay}::date), '[]'::json)`, `snapshots(${fromDay})`);
}

/** Open futures positions of the book's key (unique partial index on key + coin where open). */
export const openFuturesPart: BookPart = cacheable(sql`coalesce((
  select json_agg(json_build_object('coinId', p.coin_id, 'side', p.side, 'entryPrice', p.entry_price::text, 'sizeCoin', p.size_coin::text,
    'margin', p.margin::text))
  from futures_positions p where p.key_id = w.key_id and p.status = 'open'), '[]'::json)`);

/** Open PM positions of the book's key with the backed outcome's YES probability now (null when unreadable). */
export const openPmPart: BookPart = sql`coalesce((
  select json_agg(json_build_object('side', p.side, 'stakeMusd', p.stake_musd::text, 'sharesMusd', p.shares_musd::text,
    'outcomeProbability', (select (o->>'probability')::float8 from pm_markets m, jsonb_array_elements(m.outcomes) o
      where m.source = p.source and m.slug = p.event_slug and o->>'externalMarketId' = p.outcome_external_id limit 1)))
  from pm_positions p where p.key_id = w.key_id and p.status = 'open'), '[]'::json)`;

/** Open PM positions of the book's key without prices (cacheable); `pmOutcomeProbabilities` marks them. */
export const openPmHeldPart: BookPart = cacheable(sql`coalesce((
  select json_agg(json_build_object('side', p.side, 'stakeMusd', p.stake_musd::text, 'sharesMusd', p.shares_musd::text,
    'source', p.source, 'slug', p.event_slug, 'outcome', p.outcome_external_id))
  from pm_positions p where p.key_id = w.key_id and p.status = 'open'), '[]'::json)`);

export interface HeldPmPart {
  side: string;
  stakeMusd: string;
  sharesMusd: string;
  source: string;
  slug: string;
  outcome: string;
}

/** The backed outcome's YES probability now for each held position (null when unreadable), in order; one round trip. */
export async function pmOutcomeProbabilities(db: Queryable, held: HeldPmPart[]): Promise<(number | null)[]> {
  if (held.length === 0) return [];
  const wanted = JSON.stringify(held.map((h) => ({ source: h.source, slug: h.slug, outcome: h.outcome })));
  const rows = await queryRows<{ p: number | null }>(
    db,
    sql`select (select (o->>'probability')::float8 from pm_markets m, jsonb_array_elements(m.outcomes) o
                where m.source = x.v->>'source' and m.slug = x.v->>'slug' and o->>'externalMarketId' = x.v->>'outcome' limit 1) as p
        from json_array_elements(${wanted}::json) with ordinality as x(v, i) order by x.i`,
  );
  return rows.map((r) => (r.p === null ? null : Number(r.p)));
}
