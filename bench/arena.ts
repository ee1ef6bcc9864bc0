/**
 * `npm run bench:arena` — the Arena at scale: a generated data set of BENCH_ARENA_AGENTS (10,000)
 * public agents and BENCH_ARENA_TRADES (1,000,000) closed trades, plus resolved decisions, on a
 * throw-away PostgreSQL database; then the service as a user runs it, measured with autocannon.
 * Prints and writes bench/results/arena-latest.json + arena-latest.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, type LoadSettings, type Measurement } from './lib/load.js';
import { createBenchDatabase } from './lib/postgres.js';
import { freePort, startChild, stopAllChildren, stopChild, waitReady } from './lib/processes.js';
import { machineInfo } from './lib/report.js';
import { openDatabase } from '../src/storage/db.js';
import { seedArenaBenchData } from '../src/storage/arena-seed-repo.js';
import { insertClosedTrade } from '../src/storage/trades-repo.js';
import { takeRankSnapshots } from '../src/services/arena-jobs.js';
import { Decimal } from '../src/domain/money.js';
import { lockWallet } from '../src/storage/books-repo.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const resultsDir = join(benchDir, 'results');
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const AGENTS = env('BENCH_ARENA_AGENTS', 10_000);
const TRADES = env('BENCH_ARENA_TRADES', 1_000_000);
const DECISIONS = env('BENCH_ARENA_DECISIONS', 100_000);
const settings: LoadSettings = {
  duration: env('BENCH_DURATION', 10),
  warmup: env('BENCH_WARMUP', 2),
  connections: env('BENCH_CONNECTIONS', 10),
  pipelining: 1,
  timeout: 10,
};
const pgUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const log = (line: string) => console.log(`[arena-bench] ${line}`);

async function main() {
  const database = await createBenchDatabase(pgUrl);
  if ('skipped' in database) {
    log(`PostgreSQL unavailable (${database.skipped}); the Arena bench needs it`);
    process.exit(2);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-bench-arena-'));
  const nowMs = Date.now();
  try {
    const db = await openDatabase({ databaseUrl: database.url, pgliteDir: '', poolMax: 2 });
    let t = Date.now();
    const firstId = await seedArenaBenchData(db.db, { agents: AGENTS, trades: TRADES, decisions: DECISIONS, nowMs, spanDays: 120 });
    const seedMs = Date.now() - t;
    log(`seeded ${AGENTS} agents, ${TRADES} trades, ${DECISIONS} decisions in ${seedMs} ms`);
    // Write path: trades through insertClosedTrade with the fold trigger on (one transaction each).
    const WRITES = 2000;
    t = Date.now();
    for (let i = 0; i < WRITES; i += 1) {
      const keyId = firstId + (i % AGENTS);
      await db.db.transaction(async (tx) => {
        const wallet = await lockWallet(tx, keyId);
        await insertClosedTrade(tx, { keyId, walletId: wallet.id, venue: 'spot', side: 'sell', realizedPnl: new Decimal((i % 7) - 3), closedAtMs: nowMs - 1000 });
      });
    }
    const writeMs = Date.now() - t;
    log(`${WRITES} trade inserts with the aggregate trigger: ${writeMs} ms (${Math.round((WRITES * 1000) / writeMs)}/s)`);
    // Snapshots 7 h ago, so rankDelta is computed on every row.
    t = Date.now();
    await takeRankSnapshots(db, nowMs - 7 * 3_600_000);
    const snapshotMs = Date.now() - t;
    log(`rank snapshots of 6 windows: ${snapshotMs} ms`);
    await db.close();

    const port = await freePort();
    mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
    const child = startChild('service-arena', process.execPath, ['--import', 'tsx', 'src/main.ts', 'api'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: randomBytes(16).toString('hex'), LOG_LEVEL: 'warn', PUBLIC_RPM: '100000000', DATABASE_URL: database.url, REDIS_URL: '' },
      logFile: join(resultsDir, 'tmp', 'service-arena.log'),
    });
    const base = `http://127.0.0.1:${port}`;
    // An `api` process alone is never ready (ready means PM data a worker ingests); the Arena routes need none of it.
    await waitReady(child, `${base}/healthz`);
    const handle = (i: number) => `a${firstId + i}-bench-agent-${i + 1}`;
    // Cold builds: the first read of each window ranks every agent from the aggregates.
    const cold: Record<string, number> = {};
    for (const window of ['3m', 'all', 'today', '24h', '7d', '30d']) {
      const s = Date.now();
      const res = await fetch(`${base}/api/arena?window=${window}`);
      await res.text();
      cold[window] = Date.now() - s;
    }
    log(`cold board builds (ms): ${JSON.stringify(cold)}`);
    const scenarios: { name: string; paths: string[]; rowsPerRequest?: number }[] = [
      { name: 'arena default (3m, page 1)', paths: ['/api/arena'] },
      { name: 'arena mixed windows and pages', paths: ['3m', 'all', 'today', '24h', '7d', '30d'].flatMap((w) => [1, 7, 100].map((p) => `/api/arena?window=${w}&page=${p}&pageSize=50`)) },
      { name: 'arena profile', paths: Array.from({ length: 50 }, (_, i) => `/api/arena/${handle(i * 199)}`) },
      { name: 'decisions jsonl (250 rows)', paths: ['/api/arena/decisions?format=jsonl&limit=250'], rowsPerRequest: 250 },
      { name: 'scorecard', paths: Array.from({ length: 20 }, (_, i) => `/api/arena/agents/${handle(i)}/scorecard`) },
    ];
    const rows: (Measurement & { name: string; rowsPerSec?: number })[] = [];
    for (const s of scenarios) {
      const m = await measure(base, s.paths.map((path) => ({ method: 'GET' as const, path })), settings);
      const row = { name: s.name, ...m, ...(s.rowsPerRequest ? { rowsPerSec: Math.round(m.reqPerSec * s.rowsPerRequest) } : {}) };
      rows.push(row);
      log(`${s.name}: ${m.reqPerSec} req/s, p50 ${m.latencyP50Ms} ms, p99 ${m.latencyP99Ms} ms, non-2xx ${m.non2xx}${row.rowsPerSec ? `, ${row.rowsPerSec} rows/s` : ''}`);
    }
    await stopChild(child);
    const report = { at: new Date().toISOString(), machine: machineInfo(repoRoot), dataSet: { agents: AGENTS, trades: TRADES, decisions: DECISIONS }, settings, seedMs, triggerWritesPerSec: Math.round((WRITES * 1000) / writeMs), snapshotMs, coldBuildMs: cold, rows };
    writeFileSync(join(resultsDir, 'arena-latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    const md = [
      `# Arena bench — ${report.at}`,
      '',
      `Data set: ${AGENTS} public agents, ${TRADES} closed trades (120 days), ${DECISIONS} resolved decisions; PostgreSQL; ${settings.connections} connections, ${settings.duration} s per row.`,
      `Seed ${seedMs} ms; trade inserts with the aggregate trigger ${report.triggerWritesPerSec}/s; rank snapshots (6 windows) ${snapshotMs} ms; cold board builds ${JSON.stringify(cold)} ms.`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | max ms | non-2xx | rows/s |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${r.reqPerSec} | ${r.latencyP50Ms} | ${r.latencyP99Ms} | ${r.latencyMaxMs} | ${r.non2xx} | ${r.rowsPerSec ?? ''} |`),
      '',
    ].join('\n');
    writeFileSync(join(resultsDir, 'arena-latest.md'), md);
    console.log(md);
  } finally {
    await stopAllChildren();
    await database.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch(async (error) => {
  console.error(error);
  await stopAllChildren();
  process.exit(1);
});
