/**
 * Per-request cost of the account reads, in-process through `app.inject()` (no load generator:
 * safe on a busy machine), with and without the book cache (src/storage/book-cache.ts).
 * PGlite in memory by default; TEST_DATABASE_URL=postgres://… for PostgreSQL.
 * Prints wall µs and process CPU µs per request (sequential requests: CPU includes the
 * in-process PGlite, not a PostgreSQL server's).
 *
 *   npx tsx bench/account-reads-micro.ts            # MICRO_REQUESTS (1000) per route
 *   MICRO_ROUTES=portfolio,quote npx tsx bench/account-reads-micro.ts
 */
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../src/util/clock.js';
import { bearer, createTestApp } from '../test/support/app.js';
import { engineName, freshDatabase } from '../test/support/db.js';
import { startSmallMarket } from '../test/support/small-market.js';

const M = Number(process.env.MICRO_REQUESTS ?? 1000);
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const ROUTES: { label: string; method: 'GET' | 'POST'; url: string; payload?: object }[] = [
  { label: 'GET /api/agent/me (no book read)', method: 'GET', url: '/api/agent/me' },
  { label: 'GET /api/agent/wallet?coinId=1', method: 'GET', url: '/api/agent/wallet?coinId=1' },
  { label: 'GET /api/agent/portfolio', method: 'GET', url: '/api/agent/portfolio' },
  { label: 'GET /api/agent/trades?limit=25', method: 'GET', url: '/api/agent/trades?limit=25' },
  { label: 'GET /api/agent/equity-curve?days=30', method: 'GET', url: '/api/agent/equity-curve?days=30' },
  { label: 'GET /api/agent/positions/futures', method: 'GET', url: '/api/agent/positions/futures' },
  { label: 'POST /api/agent/futures/quote', method: 'POST', url: '/api/agent/futures/quote', payload: { coinId: '1', side: 'long', leverage: 10, marginMusd: 100 } },
];

const only = (process.env.MICRO_ROUTES ?? '').split(',').filter(Boolean);
const routes = only.length ? ROUTES.filter((r) => only.some((o) => r.url.includes(o))) : ROUTES;

async function run(bookCache: boolean): Promise<Map<string, { wall: number; cpu: number }>> {
  const testDb = await freshDatabase({ bookCache });
  const sim = await startSmallMarket(testDb.database.db, NOW);
  const t = await createTestApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market, config: { agentRpm: 1e9, tradeWpm: 1e9, publicRpm: 1e9 } });
  t.market.set('1', 50_000, NOW);
  t.market.set('1027', 3_000, NOW);
  const { key } = await t.newKey();
  const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
  await post('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: 'm1' });
  await post('/api/agent/spot/order', { coinId: '1027', side: 'buy', orderType: 'market', quantity: 0.1, idempotencyKey: 'm2' });
  await post('/api/agent/spot/order', { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 1000, idempotencyKey: 'm3' });
  await post('/api/agent/futures/open', { coinId: '1', side: 'long', leverage: 5, marginMusd: 100, idempotencyKey: 'm4' });
  const out = new Map<string, { wall: number; cpu: number }>();
  for (const r of routes) {
    const once = () => t.app.inject({ method: r.method, url: r.url, headers: bearer(key), ...(r.payload ? { payload: r.payload } : {}) });
    const first = await once();
    if (first.statusCode !== 200) throw new Error(`${r.label}: ${first.statusCode} ${first.body}`);
    for (let i = 0; i < Math.min(200, M); i++) await once();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < M; i++) await once();
    const wall = ((performance.now() - t0) * 1000) / M;
    const c = process.cpuUsage(cpu0);
    out.set(r.label, { wall, cpu: (c.user + c.system) / M });
  }
  await t.close();
  await testDb.drop();
  return out;
}

const off = await run(false);
const on = await run(true);
console.log(`\n# account reads, ${engineName}, mean per request over ${M} (in-process inject)`);
console.log('| route | no cache: wall µs / CPU µs | book cache: wall µs / CPU µs |');
console.log('|---|--:|--:|');
for (const r of routes) {
  const a = off.get(r.label)!;
  const b = on.get(r.label)!;
  console.log(`| ${r.label} | ${a.wall.toFixed(0)} / ${a.cpu.toFixed(0)} | ${b.wall.toFixed(0)} / ${b.cpu.toFixed(0)} |`);
}
process.exit(0);
