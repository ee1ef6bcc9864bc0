/**
 * Times the service's start-up as a user runs it (PGlite, simulated market, 300 coins): a cold
 * start on an empty DATA_DIR and a restart on the same DATA_DIR. For each it records when
 * /healthz answers, when /readyz answers 200, and when real data is served (PM events and
 * overview non-empty, price history with points for a native venue) — checked independently
 * of /readyz, so a /readyz that lies shows. Then it samples the idle RSS after IDLE_SECONDS.
 * Writes bench/results/market-startup.json (market-startup-postgres.json with DATABASE_URL). Run: npx tsx bench/market-startup.ts
 * (DATABASE_URL=postgres://… measures PostgreSQL instead: the database is used as given.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, logTail, sampleMemory, startChild, stopChild, waitReady, type Child } from './lib/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
mkdirSync(join(resultsDir, 'tmp'), { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'pa-startup-'));
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 20);
const databaseUrl = process.env.DATABASE_URL ?? '';

async function json(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** True when the PM lists and a native venue's price history hold data. */
async function servesData(base: string): Promise<boolean> {
  try {
    const events = await json(`${base}/api/prediction-markets/events?status=open&source=polymarket&limit=5`);
    const list = (events.body as { data?: { slug?: string }[] } | null)?.data ?? [];
    if (events.status !== 200 || list.length === 0) return false;
    const overview = await json(`${base}/api/prediction-markets/overview`);
    if (overview.status !== 200 || !overview.body || Object.keys(overview.body as object).length === 0) return false;
    const history = await json(`${base}/api/prediction-markets/event/polymarket/${list[0]!.slug}/price-history?interval=1m`);
    const points = (history.body as { points?: unknown[] } | null)?.points ?? [];
    const gainers = await json(`${base}/api/coins/top-gainers`);
    const coins = (gainers.body as { data?: unknown[] } | unknown[] | null) ?? null;
    return points.length > 0 && gainers.status === 200 && coins !== null;
  } catch {
    return false;
  }
}

async function until(child: Child, what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exit) throw new Error(`${child.label} exited while waiting for ${what}:\n${logTail(child)}`);
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.label}: no ${what} after ${timeoutMs / 1000} s:\n${logTail(child)}`);
}

async function timeStart(label: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = startChild(label, process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, REDIS_URL: '' },
    logFile: join(resultsDir, 'tmp', `startup-${label}.log`),
  });
  try {
    const since = () => Math.round(performance.now() - started);
    await waitReady(child, `${base}/healthz`, 120_000);
    const healthzMs = since();
    await waitReady(child, `${base}/readyz`, 120_000);
    const readyzMs = since();
    const dataAtReadyz = await servesData(base);
    await until(child, 'data', () => servesData(base), 120_000);
    const dataMs = since();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const memory = sampleMemory(child.pid);
    return { healthzMs, readyzMs, dataMs, dataAtReadyz, idleRssMb: memory?.rssMb ?? null, peakRssMb: memory?.peakRssMb ?? null, log: logTail(child, 3000) };
  } finally {
    await stopChild(child);
  }
}

try {
  const loadAtStart = loadavg()[0];
  const cold = await timeStart('cold');
  const restart = await timeStart('restart');
  const result = {
    at: new Date().toISOString(),
    database: databaseUrl ? 'postgres' : 'pglite',
    loadAverageAtStart: loadAtStart,
    idleSeconds: IDLE_SECONDS,
    cold: { ...cold, log: undefined },
    restart: { ...restart, log: undefined },
  };
  writeFileSync(join(resultsDir, databaseUrl ? 'market-startup-postgres.json' : 'market-startup.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('--- cold start log ---');
  console.log(cold.log);
  console.log('--- restart log ---');
  console.log(restart.log);
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
