/**
 * `npx tsx bench/micro-timings.ts` — what one request costs on the hot path, without a network
 * or a load generator (safe on a busy machine: it reports per-call means, not throughput).
 *
 * 1. The per-request plugins one by one: key auth (hash + cache hit), the rate-limit counter,
 *    the ledger row (sanitized summaries from the handler's object + enqueue), and for
 *    comparison the response re-parse the ledger used to do.
 * 2. Whole requests through `app.inject()` (in-process, PGlite in memory, 8-coin sim market):
 *    mean µs per request for the hot reads, with and without a matching If-None-Match.
 */
import { performance } from 'node:perf_hooks';
import { hashKey } from '../src/domain/api-keys.js';
import { LedgerWriter } from '../src/ledger/writer.js';
import { sanitize } from '../src/ledger/summaries.js';
import { MemoryRateLimitStore } from '../src/ratelimit/memory-store.js';
import { KeyCache } from '../src/services/key-cache.js';
import { uuidv7 } from '../src/util/ids.js';
import { ManualClock } from '../src/util/clock.js';
import { bearer, createTestApp } from '../test/support/app.js';
import { freshDatabase } from '../test/support/db.js';
import { startSmallMarket } from '../test/support/small-market.js';

const N = Number(process.env.MICRO_ITERATIONS ?? 20_000);

async function time(label: string, n: number, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < Math.min(1000, n); i++) await fn(i); // warm-up
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const us = ((performance.now() - started) * 1000) / n;
  console.log(`${label.padEnd(58)} ${us.toFixed(2).padStart(9)} µs`);
  return us;
}

console.log(`# per-request plugin costs (mean of ${N} calls)`);
const raw = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const cache = new KeyCache();
cache.setEnabled(true);
const hash = hashKey(raw);
cache.set(hash, { keyId: 1, userId: 'u', scopes: ['read'], agentName: null, agentModel: null }, 0, cache.mark());
await time('auth: sha-256 of the key + key-cache hit', N, () => cache.get(hashKey(raw), 1));
const limits = new MemoryRateLimitStore();
await time('rate limit: in-memory window counter hit', N, (i) => limits.hit(`key:${i % 50}`, 60_000, 1_000));
const writer = new LedgerWriter({ insert: async () => undefined }, { flushMs: 1000, maxBatch: 1_000_000, maxBuffered: 10_000_000 });
const meBody = { keyId: 1, userId: 'u', agentName: 'bench', scopes: ['read', 'trade:spot'], createdAt: '2026-11-23T00:00:00.000Z', handle: 'bench-agent' };
await time('ledger: request + response summaries, id, enqueue', N, (i) =>
  writer.enqueue({
    id: uuidv7(i),
    keyId: 1,
    method: 'GET',
    endpoint: '/api/agent/me',
    venue: null,
    eventType: 'read',
    statusCode: 200,
    ledgerStatus: 'success',
    latencyMs: 0,
    idempotencyKey: null,
    relatedEntityType: null,
    relatedEntityId: null,
    requestSummary: sanitize({ query: {}, params: {}, body: null }),
    responseSummary: sanitize(meBody),
    blockReasons: [],
    runId: null,
    decisionId: null,
    strategyLabel: null,
    confidence: null,
    rationaleSummary: null,
    startedAt: new Date(i),
    completedAt: new Date(i),
  }),
);

console.log(`\n# whole requests through app.inject() (mean µs per request, in-process)`);
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const testDb = await freshDatabase();
const sim = await startSmallMarket(testDb.database.db, NOW);
const t = await createTestApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market, config: { agentRpm: 1e9, tradeWpm: 1e9, publicRpm: 1e9 } });
t.market.set('1', 50_000, NOW);
const { key } = await t.newKey();
await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.01, idempotencyKey: 'micro-1' } });
const candlesBody = (await t.app.inject({ url: '/api/agent/market/1/candles?range=1D', headers: bearer(key) })).body;
await time(`(removed) JSON.parse of a candles response (${Math.round(candlesBody.length / 1024)} KB)`, 2000, () => JSON.parse(candlesBody));

const M = Number(process.env.MICRO_REQUESTS ?? 3000);
const inject = (url: string, headers: Record<string, string> = {}) => () => t.app.inject({ url, headers: { ...bearer(key), ...headers } });
await time('GET /healthz (keyless, no plugins: the inject floor)', M, () => t.app.inject({ url: '/healthz' }));
await time('GET /api/agent/me', M, inject('/api/agent/me'));
for (const url of ['/api/agent/resolve?q=btc', '/api/agent/market/1', '/api/agent/market/1/candles?range=1D']) {
  await time(`GET ${url}`, M, inject(url));
  const etag = (await t.app.inject({ url, headers: bearer(key) })).headers.etag as string;
  await time(`GET ${url} (If-None-Match → 304)`, M, inject(url, { 'if-none-match': etag }));
}
for (const url of ['/api/agent/wallet', '/api/agent/portfolio', '/api/agent/trades', '/api/agent/equity-curve', '/api/agent/performance']) {
  await time(`GET ${url} (PGlite in memory)`, Math.round(M / 3), inject(url));
}
await t.close();
await testDb.drop();
