/**
 * `npx tsx bench/futures.ts` — mock-futures figures, one whole run per engine:
 *
 *   1. open+close cycles per second through the HTTP app (auth, budgets, ledger,
 *      idempotency, book lock, journal): BENCH_FUTURES_WORKERS keys in parallel, each
 *      looping open → close for BENCH_DURATION seconds;
 *   2. the risk sweep over BENCH_FUTURES_POSITIONS (10,000) open positions: once when
 *      nothing fires (the every-minute case) and once when every position is liquidated
 *      (a crash), followed by `doctor`.
 *
 * Engines: PGlite (file-backed in a temp dir, as `npm start` runs) and PostgreSQL on
 * BENCH_PG_URL when reachable (a throw-away database). Writes
 * bench/results/futures-latest.json and .md and prints the table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config/env.js';
import type { CoinRef } from '../src/domain/coin-ref.js';
import type { MarketFeed, PriceObservation } from '../src/marketdata/feed.js';
import { checkBooks } from '../src/services/doctor.js';
import { openFuturesPosition } from '../src/services/futures/open.js';
import { sweepFuturesRisk } from '../src/services/futures/risk-sweep.js';
import { createKey } from '../src/services/keys.js';
import type { Database } from '../src/storage/db.js';
import { systemClock } from '../src/util/clock.js';
import { runOnEachEngine } from './lib/engines.js';

const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const DURATION_S = envInt('BENCH_DURATION', 10);
const WORKERS = envInt('BENCH_FUTURES_WORKERS', 16);
const POSITIONS = envInt('BENCH_FUTURES_POSITIONS', 10_000);
const COINS = 50;
const PG_URL = process.env.BENCH_PG_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';

/** Prices set by the bench, always stamped "now" so they are fresh. */
class BenchMarket implements MarketFeed {
  readonly source = 'sim';
  readonly coins: CoinRef[] = Array.from({ length: COINS }, (_, i) => ({
    coinId: String(900_001 + i),
    slug: `bench-${i}`,
    symbol: `B${i}`,
    name: `Bench ${i}`,
    rank: i + 1,
    categories: [],
  }));
  private readonly prices = new Map<string, number>(this.coins.map((c) => [c.coinId, 100]));
  coin(coinId: string) {
    return this.coins.find((c) => c.coinId === coinId) ?? null;
  }
  price(coinId: string): PriceObservation | null {
    const p = this.prices.get(coinId);
    return p === undefined ? null : { coinId, priceUsd: p, asOfMs: Date.now() };
  }
  priceRange() {
    return null;
  }
  setAll(price: number) {
    for (const c of this.coins) this.prices.set(c.coinId, price);
  }
}

interface EngineFigures {
  engine: string;
  cyclesPerSecond: number;
  cycles: number;
  cycleErrors: number;
  seededPositions: number;
  seedSeconds: number;
  sweepNothingFiresMs: number;
  sweepAllLiquidateMs: number;
  liquidated: number;
  doctorOk: boolean;
}

async function runEngine(engine: string, database: Database): Promise<EngineFigures> {
  const market = new BenchMarket();
  const config = testConfig({ agentRpm: 1e9, tradeWpm: 1e9, ledgerFlushMs: 250 });
  const app = await buildApp({ config, database, adminToken: 'bench-admin-token-0123456789', market, clock: systemClock });
  await app.ready();
  try {
    // 1. open+close cycles through HTTP
    const keys = await Promise.all(
      Array.from({ length: WORKERS }, (_, i) => createKey(database.db, { userId: 'bench', agentName: `cycle-${i}`, scopes: ['read', 'trade:futures'] })),
    );
    let cycles = 0;
    let errors = 0;
    let n = 0;
    const until = Date.now() + DURATION_S * 1000;
    const t0 = performance.now();
    await Promise.all(
      keys.map(async ({ key }) => {
        const headers = { authorization: `Bearer ${key}` };
        while (Date.now() < until) {
          const opened = await app.inject({
            method: 'POST',
            url: '/api/agent/futures/open',
            headers,
            payload: { coinId: market.coins[0]!.coinId, side: 'long', leverage: 5, marginMusd: 10, idempotencyKey: `o-${(n += 1)}` },
          });
          if (opened.statusCode !== 201) {
            errors += 1;
            continue;
          }
          const closed = await app.inject({
            method: 'POST',
            url: '/api/agent/futures/close',
            headers,
            payload: { positionId: opened.json().position.id, idempotencyKey: `c-${(n += 1)}` },
          });
          if (closed.statusCode === 200) cycles += 1;
          else errors += 1;
        }
      }),
    );
    const cycleSeconds = (performance.now() - t0) / 1000;

    // 2. seed POSITIONS open longs: one per (key, coin)
    const seedStart = performance.now();
    const holders = await Promise.all(
      Array.from({ length: Math.ceil(POSITIONS / COINS) }, (_, i) => createKey(database.db, { userId: 'bench', agentName: `holder-${i}`, scopes: ['trade:futures'] })),
    );
    const jobs: { keyId: number; coin: CoinRef }[] = [];
    for (const h of holders) for (const coin of market.coins) if (jobs.length < POSITIONS) jobs.push({ keyId: h.keyId, coin });
    // seeding is not what is measured: a few writers at once on PostgreSQL
    const chunk = 100;
    const parallel = engine === 'postgres' ? 4 : 1;
    const chunks: (typeof jobs)[] = [];
    for (let i = 0; i < jobs.length; i += chunk) chunks.push(jobs.slice(i, i + chunk));
    for (let i = 0; i < chunks.length; i += parallel) {
      await Promise.all(
        chunks.slice(i, i + parallel).map((part) =>
          (async () => {
            for (const j of part) {
              const intent = { keyId: j.keyId, coin: j.coin, side: 'long' as const, leverage: 10, marginMusd: 10, idempotencyKey: `seed-${j.keyId}-${j.coin.coinId}` };
              await openFuturesPosition(database.db, market, Date.now(), intent, { route: 'bench seed', body: { ...intent, coin: j.coin.coinId } });
            }
          })(),
        ),
      );
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;

    // 3. the sweep: nothing fires (median of 3), then everything liquidates
    const quiet: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const s = performance.now();
      const r = await sweepFuturesRisk(database.db, market, Date.now());
      quiet.push(performance.now() - s);
      if (r.candidates !== 0) throw new Error('a quiet sweep found triggers');
    }
    quiet.sort((a, b) => a - b);
    market.setAll(50); // 10x longs from 100 liquidate at 90.5
    const crashStart = performance.now();
    const crash = await sweepFuturesRisk(database.db, market, Date.now());
    const sweepAllLiquidateMs = performance.now() - crashStart;
    const doctor = await checkBooks(database.db);
    return {
      engine,
      cyclesPerSecond: Math.round((cycles / cycleSeconds) * 10) / 10,
      cycles,
      cycleErrors: errors,
      seededPositions: jobs.length,
      seedSeconds: Math.round(seedSeconds * 10) / 10,
      sweepNothingFiresMs: Math.round(quiet[1]!),
      sweepAllLiquidateMs: Math.round(sweepAllLiquidateMs),
      liquidated: crash.liquidation,
      doctorOk: doctor.ok,
    };
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const { results, notes } = await runOnEachEngine('futures', PG_URL, runEngine);
  const header = `futures bench ${new Date().toISOString()} — ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${DURATION_S} s of cycles with ${WORKERS} parallel keys; ${POSITIONS} positions over ${COINS} coins`;
  const rows = results.map(
    (r) =>
      `| ${r.engine} | ${r.cyclesPerSecond} | ${r.cycleErrors} | ${r.seededPositions} | ${r.sweepNothingFiresMs} | ${r.sweepAllLiquidateMs} (${r.liquidated} liquidated) | ${r.doctorOk ? 'ok' : 'FAILED'} |`,
  );
  const md = [
    `# Futures bench`,
    '',
    header,
    '',
    '| engine | open+close cycles/s | cycle errors | open positions | sweep, nothing fires (ms) | sweep, all liquidate (ms) | doctor |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    ...notes.map((n) => `\n${n}`),
    '',
  ].join('\n');
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'futures-latest.json'), JSON.stringify({ header, results, notes }, null, 2) + '\n');
  writeFileSync(join(out, 'futures-latest.md'), md);
  console.log(md);
  if (results.some((r) => !r.doctorOk || r.liquidated !== r.seededPositions)) process.exitCode = 1;
}

await main();
