/**
 * `npx tsx bench/account-scale.ts` — account-side costs as the data grows (PostgreSQL at
 * BENCH_PG_URL; a throw-away database, dropped at the end). No HTTP load:
 *
 * 1. the equity-snapshot job over SCALE_BOOKS (100,000) books, half holding two coins and one
 *    in ten with an open futures position — one INSERT … SELECT (target ≤ 10 s);
 * 2. one key's portfolio / performance / equity-curve / trades read, in-process, after 10 and
 *    after SCALE_HISTORY (10,000) trade-log rows and resting-order history (target: within 10 %).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { testConfig } from '../src/config/env.js';
import { buildApp } from '../src/app.js';
import type { MarketFeed } from '../src/marketdata/feed.js';
import { createKey } from '../src/services/keys.js';
import { openDatabase } from '../src/storage/db.js';
import { snapshotEquity } from '../src/workers/equity-snapshots.js';
import { createBenchDatabase } from './lib/postgres.js';

const BOOKS = Number(process.env.SCALE_BOOKS ?? 100_000);
const HISTORY = Number(process.env.SCALE_HISTORY ?? 10_000);
const READS = Number(process.env.SCALE_READS ?? 300);
const now = Date.now();
const market: MarketFeed = {
  source: 'bench',
  coin: () => null,
  price: (coinId) => ({ coinId, priceUsd: coinId === '1' ? 51_234.5 : 2_345.67, asOfMs: now }),
  priceRange: () => null,
};

const created = await createBenchDatabase(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
if ('skipped' in created) {
  console.error(`PostgreSQL unavailable: ${created.skipped}`);
  process.exit(2);
}
const database = await openDatabase({ databaseUrl: created.url, pgliteDir: '', poolMax: 4 });
try {
  const db = database.db;
  let t = performance.now();
  await db.execute(sql`insert into users (id) values ('bench-scale')`);
  await db.execute(sql`insert into api_keys (user_id, key_hash, key_prefix, scopes)
    select 'bench-scale', md5('bench-scale-' || g), 'sk_live_bench', '{read}' from generate_series(1, ${BOOKS}) g`);
  await db.execute(sql`insert into wallets (key_id, cash_available, cash_frozen_futures)
    select id, 40000, case when id % 10 = 0 then 1000 else 0 end from api_keys where user_id = 'bench-scale'`);
  await db.execute(sql`insert into holdings (wallet_id, coin_id, available, frozen, avg_cost_usd, updated_at)
    select w.id, c.coin, 0.01 * (w.id % 7 + 1), 0, 50000, now() from wallets w, (values ('1'), ('1027')) c(coin) where w.id % 2 = 0`);
  await db.execute(sql`insert into futures_positions (key_id, wallet_id, coin_id, symbol, coin_name, side, status, leverage, entry_price, margin,
      size_coin, maintenance_margin_rate, liquidation_price, freshness_at_entry, opened_at, created_at, updated_at)
    select w.key_id, w.id, '1', 'BTC', 'Bitcoin', case when w.id % 20 = 0 then 'short' else 'long' end, 'open', 5, 50000, 1000,
      0.1, 0.005, 41000, '{}'::jsonb, now(), now(), now()
    from wallets w where w.key_id % 10 = 0`);
  await db.execute(sql`analyze`);
  console.log(`seeded ${BOOKS} books in ${Math.round(performance.now() - t)} ms`);

  t = performance.now();
  const written = await snapshotEquity(database, market, now);
  console.log(`equity snapshot of ${written} books: ${Math.round(performance.now() - t)} ms (target ≤ 10,000 ms)`);
  t = performance.now();
  await snapshotEquity(database, market, now);
  console.log(`  again (every row updated in place): ${Math.round(performance.now() - t)} ms`);

  const app = await buildApp({ config: testConfig({ agentRpm: 1e9 }), database, adminToken: 'bench-scale-admin-token-0123', market });
  await app.ready();
  const keyFor = async () => (await createKey(db, { userId: 'bench-scale', scopes: ['read', 'trade:spot'] })).key;
  const short = await keyFor();
  const long = await keyFor();
  for (const key of [short, long]) await app.inject({ url: '/api/agent/wallet', headers: { authorization: `Bearer ${key}` } });
  // History straight into the tables the reads use (the triggers keep the running totals).
  const history = async (key: string, rows: number) => {
    const me = (await app.inject({ url: '/api/agent/me', headers: { authorization: `Bearer ${key}` } })).json() as { keyId: number };
    await db.execute(sql`insert into closed_trades (key_id, wallet_id, venue, side, coin_id, realized_pnl, closed_at)
      select w.key_id, w.id, (array['spot', 'futures', 'pm'])[1 + g % 3], 'sell', '1',
             case when g % 4 = 0 then null else round(((g % 13) - 6)::numeric, 2) end, now() - (g || ' seconds')::interval
      from wallets w, generate_series(1, ${rows}) g where w.key_id = ${me.keyId}`);
    await db.execute(sql`insert into spot_orders (key_id, wallet_id, coin_id, symbol, side, order_type, quantity, limit_price, status,
        frozen_amount, checked_until, created_at, updated_at, closed_at)
      select w.key_id, w.id, '1', 'BTC', 'buy', 'limit', 0.001, 40000, case when g <= 5 then 'open' else 'cancelled' end,
             case when g <= 5 then 40 else 0 end, now(), now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, now()
      from wallets w, generate_series(1, ${rows}) g where w.key_id = ${me.keyId}`);
  };
  await history(short, 10);
  await history(long, HISTORY);
  await db.execute(sql`analyze`);
  for (const url of ['/api/agent/portfolio', '/api/agent/performance', '/api/agent/equity-curve', '/api/agent/equity-curve?granularity=realized', '/api/agent/trades', '/api/agent/wallet']) {
    const times: Record<string, number> = {};
    for (const [label, key] of [['10', short], [String(HISTORY), long]] as const) {
      const headers = { authorization: `Bearer ${key}` };
      for (let i = 0; i < 30; i++) await app.inject({ url, headers });
      const started = performance.now();
      for (let i = 0; i < READS; i++) await app.inject({ url, headers });
      times[label] = ((performance.now() - started) * 1000) / READS;
    }
    const [a, b] = Object.values(times) as [number, number];
    console.log(`${url.padEnd(44)} after 10: ${a.toFixed(0).padStart(6)} µs   after ${HISTORY}: ${b.toFixed(0).padStart(6)} µs   (${(((b - a) / a) * 100).toFixed(1)} %)`);
  }
  await app.close();
} finally {
  await database.close();
  await created.drop();
}
