/**
 * `npx tsx bench/pm-trading.ts` — mock PM trading figures, one whole run per engine:
 *
 *   1. PM opens per second through the HTTP app (auth, budgets, ledger, idempotency, book
 *      lock, journal, decision record): BENCH_PM_WORKERS keys in parallel, each opening
 *      10 mUSD positions for BENCH_DURATION seconds;
 *   2. settlement of BENCH_PM_POSITIONS (10,000) open positions on ONE resolution: the
 *      whole `settlePmPositions` run (payouts, journal, trade log, decisions), then `doctor`.
 *
 * Engines: PGlite (file-backed in a temp dir) and PostgreSQL on BENCH_PG_URL when reachable
 * (a throw-away database). Writes bench/results/pm-trading-latest.json and .md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config/env.js';
import type { MarketFeed } from '../src/marketdata/feed.js';
import { forcePmResolution } from '../src/pm/api.js';
import { checkBooks } from '../src/services/doctor.js';
import { createKey } from '../src/services/keys.js';
import { openPmPosition } from '../src/services/pm-trading.js';
import { settlePmPositions } from '../src/services/pm-trading-settlement.js';
import type { Database } from '../src/storage/db.js';
import { pmMarkets } from '../src/storage/schema.js';
import { systemClock } from '../src/util/clock.js';
import { runOnEachEngine } from './lib/engines.js';

const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const DURATION_S = envInt('BENCH_DURATION', 10);
const WORKERS = envInt('BENCH_PM_WORKERS', 16);
const POSITIONS = envInt('BENCH_PM_POSITIONS', 10_000);
const PG_URL = process.env.BENCH_PG_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
const PER_KEY = 100;

const noMarket: MarketFeed = { source: 'sim', coins: [], coin: () => null, price: () => null, priceRange: () => null } as unknown as MarketFeed;

async function insertMarket(database: Database, slug: string): Promise<void> {
  const now = new Date();
  await database.db.insert(pmMarkets).values({
    source: 'polymarket',
    slug,
    marketId: slug,
    title: `Bench market ${slug}`,
    category: 'crypto',
    kind: 'binary',
    status: 'open',
    outcomes: [
      { externalMarketId: `${slug}-yes`, name: 'Yes', probability: 40, bid: 39.5, ask: 40.5 },
      { externalMarketId: `${slug}-no`, name: 'No', probability: 60, bid: 59.5, ask: 60.5 },
    ],
    volume: 1e6,
    volume24h: 1e5,
    liquidity: 1e6,
    coinIds: [],
    topics: [],
    spark: [],
    resolvedAtVerified: false,
    lastCaptureAt: now,
    updatedAt: now,
  });
}

interface Figures {
  engine: string;
  opensPerSecond: number;
  opens: number;
  openErrors: number;
  settledPositions: number;
  seedSeconds: number;
  settlementMs: number;
  doctorOk: boolean;
}

async function runEngine(engine: string, database: Database): Promise<Figures> {
  const config = testConfig({ agentRpm: 1e9, tradeWpm: 1e9, ledgerFlushMs: 250 });
  const app = await buildApp({ config, database, adminToken: 'bench-admin-token-0123456789', market: noMarket, clock: systemClock });
  await app.ready();
  try {
    await insertMarket(database, 'bench-opens');
    await insertMarket(database, 'bench-settle');
    // 1. opens through HTTP
    const keys = await Promise.all(Array.from({ length: WORKERS }, (_, i) => createKey(database.db, { userId: 'bench', agentName: `pm-${i}`, scopes: ['read', 'trade:pm'] })));
    let opens = 0;
    let errors = 0;
    let n = 0;
    const until = Date.now() + DURATION_S * 1000;
    const t0 = performance.now();
    await Promise.all(
      keys.map(async ({ key }) => {
        const headers = { authorization: `Bearer ${key}` };
        while (Date.now() < until) {
          const res = await app.inject({
            method: 'POST',
            url: '/api/agent/pm/open',
            headers,
            payload: { source: 'polymarket', slug: 'bench-opens', outcomeExternalMarketId: 'bench-opens-yes', stakeMusd: 10, idempotencyKey: `o-${(n += 1)}` },
          });
          if (res.statusCode === 201) opens += 1;
          else errors += 1;
        }
      }),
    );
    const openSeconds = (performance.now() - t0) / 1000;

    // 2. seed POSITIONS on one market (not measured): 100 per key
    const seedStart = performance.now();
    const holders = await Promise.all(
      Array.from({ length: Math.ceil(POSITIONS / PER_KEY) }, (_, i) => createKey(database.db, { userId: 'bench', agentName: `holder-${i}`, scopes: ['trade:pm'] })),
    );
    const parallel = engine === 'postgres' ? 4 : 1;
    let seeded = 0;
    for (let i = 0; i < holders.length; i += parallel) {
      await Promise.all(
        holders.slice(i, i + parallel).map((h, k) =>
          (async () => {
            for (let j = 0; j < PER_KEY && seeded < POSITIONS; j += 1) {
              seeded += 1;
              const input = {
                keyId: h.keyId,
                source: 'polymarket',
                slug: 'bench-settle',
                outcomeExternalMarketId: 'bench-settle-yes',
                side: j % 2 === 0 ? ('yes' as const) : ('no' as const),
                stakeMusd: 10,
                forecastProbability: 55,
              };
              const idempotencyKey = `seed-${h.keyId}-${j}`;
              await openPmPosition(database, systemClock, input, { agentName: `holder-${i + k}`, agentModel: null }, { idempotencyKey, route: 'bench seed', body: { ...input, idempotencyKey } });
            }
          })(),
        ),
      );
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;

    // 3. one resolution, one whole settlement run
    await forcePmResolution(database, systemClock, { source: 'polymarket', slug: 'bench-settle', winnerExternalMarketId: 'bench-settle-yes' });
    const s = performance.now();
    const settled = await settlePmPositions(database, Date.now());
    const settlementMs = performance.now() - s;
    const doctor = await checkBooks(database.db);
    return {
      engine,
      opensPerSecond: Math.round((opens / openSeconds) * 10) / 10,
      opens,
      openErrors: errors,
      settledPositions: settled,
      seedSeconds: Math.round(seedSeconds * 10) / 10,
      settlementMs: Math.round(settlementMs),
      doctorOk: doctor.ok,
    };
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const { results, notes } = await runOnEachEngine('pm', PG_URL, runEngine);
  const header = `pm-trading bench ${new Date().toISOString()} — ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${DURATION_S} s of opens with ${WORKERS} parallel keys; ${POSITIONS} positions settled on one resolution`;
  const md = [
    '# PM trading bench',
    '',
    header,
    '',
    '| engine | PM opens/s | open errors | positions settled | settlement run (ms) | doctor |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.engine} | ${r.opensPerSecond} | ${r.openErrors} | ${r.settledPositions} | ${r.settlementMs} | ${r.doctorOk ? 'ok' : 'FAILED'} |`),
    ...notes.map((x) => `\n${x}`),
    '',
  ].join('\n');
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'pm-trading-latest.json'), JSON.stringify({ header, results, notes }, null, 2) + '\n');
  writeFileSync(join(out, 'pm-trading-latest.md'), md);
  console.log(md);
  if (results.some((r) => !r.doctorOk || r.settledPositions !== POSITIONS)) process.exitCode = 1;
}

await main();
