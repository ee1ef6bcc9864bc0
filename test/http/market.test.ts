import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDLE_RANGES, CANDLE_RANGE_NAMES } from '../../src/domain/candles.js';
import type { RunningSimMarket } from '../../src/services/sim-market-boot.js';
import { ManualClock } from '../../src/util/clock.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { keyedRouteSecurity } from '../support/security.js';
import { startSmallMarket } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
let t: TestApp;
let sim: RunningSimMarket;
let key: string;

beforeAll(async () => {
  const testDb = await freshDatabase();
  sim = await startSmallMarket(testDb.database.db, NOW);
  t = await createTestApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market });
  ({ key } = await t.newKey(['read']));
});
afterAll(async () => {
  await t.close();
  await t.testDb.drop();
});

const get = (url: string) => t.app.inject({ url, headers: bearer(key) });

describe('GET /api/agent/resolve', () => {
  it('resolves "btc" to coinId "1" case-insensitively, by symbol, slug or name', async () => {
    for (const q of ['btc', 'BTC', 'bitcoin', 'Bitcoin']) {
      const res = await get(`/api/agent/resolve?q=${q}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().match).toMatchObject({ coinId: '1', slug: 'bitcoin', symbol: 'BTC', marketCapRank: 1 });
    }
    expect((await get('/api/agent/resolve?symbol=eth')).json().match.coinId).toBe('1027');
  });

  it('lists alternatives and answers match null when nothing fits', async () => {
    const res = (await get('/api/agent/resolve?q=bitcoin')).json();
    expect(res.alternatives.map((a: { coinId: string }) => a.coinId)).toContain('1831'); // Bitcoin Cash
    expect((await get('/api/agent/resolve?q=zzzzzz')).json()).toEqual({ query: 'zzzzzz', match: null, alternatives: [] });
  });

  it('answers 400 naming the field for an empty or missing q', async () => {
    for (const url of ['/api/agent/resolve', '/api/agent/resolve?q=', '/api/agent/resolve?q=%20%20']) {
      const res = await get(url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', field: 'query.q' });
    }
  });
});

describe('GET /api/agent/market/{coinId}', () => {
  it('returns every context field with a fresh price', async () => {
    const res = await get('/api/agent/market/1');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.coin).toEqual({ coinId: '1', symbol: 'BTC', name: 'Bitcoin', marketCapRank: 1, categories: expect.any(Array) });
    expect(body.price.usd).toBe(sim.market.price('1')!.priceUsd);
    for (const field of ['change1h', 'change24h', 'change7d', 'marketCapUsd']) expect(typeof body.price[field]).toBe('number');
    expect(Number.isInteger(body.sentiment.bullishVotes)).toBe(true);
    expect(body.sentiment.totalVotes).toBe(body.sentiment.bullishVotes + body.sentiment.bearishVotes);
    expect(body.fearGreed.value).toBeGreaterThanOrEqual(0);
    expect(body.fearGreed.value).toBeLessThanOrEqual(100);
    expect(typeof body.fearGreed.label).toBe('string');
    // reference extras (supplement 2.23): sent, null where not tracked
    expect(body.sentiment).toMatchObject({ dayUtc: null, updatedAt: null });
    expect(body.fearGreed.fetchedAt).toBeNull();
    expect(body.futuresEntryEligibility).toEqual({
      status: 'eligible',
      referenceRequired: false,
      venue: null,
      symbol: null,
      referenceFetchedAt: null,
      maxReferenceAgeHours: null,
      evaluatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(body.relatedMarkets).toEqual([]);
    expect(body.similarCoins[0]).toMatchObject({ coinId: '1831', sharedCategoryCount: 2 });
    expect(body.freshness).toMatchObject({ status: 'fresh', ageSeconds: 0 });
    expect(body.observation).toMatchObject({ schema: 'svc.agentObservation.v1', source: 'sim', inputs: { coinId: '1' }, rowCount: 1 });
    expect(body.observation.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('turns stale when no new price arrives for over 120 s', async () => {
    const asOf = Date.parse((await get('/api/agent/market/1027')).json().freshness.asOf);
    // 120.4 s: shown as 120 s, but stale, as an order at this moment is refused
    t.clock.set(asOf + 120_400);
    const body = (await get('/api/agent/market/1027')).json();
    expect(body.freshness).toMatchObject({ ageSeconds: 120, status: 'stale' });
    t.clock.set(asOf + 120_000);
    expect((await get('/api/agent/market/1027')).json().freshness.status).toBe('fresh');
    t.clock.set(NOW);
  });

  it('answers 404 coin_not_found for an unknown coin', async () => {
    const res = await get('/api/agent/market/424242');
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('coin_not_found');
  });
});

describe('GET /api/agent/market/{coinId}/candles', () => {
  it('serves every range full, oldest to newest, in unix seconds, cached about 60 s', async () => {
    for (const range of CANDLE_RANGE_NAMES) {
      const res = await get(`/api/agent/market/1/candles?range=${range}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toContain('max-age=60');
      const body = res.json();
      expect(body).toMatchObject({ coin: { ucid: '1', slug: 'bitcoin', symbol: 'BTC', name: 'Bitcoin' }, range, fiat: 'USD', rateToUsd: 1 });
      expect(body.candles).toHaveLength(CANDLE_RANGES[range].count);
      const times = body.candles.map((c: { t: number }) => c.t);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times.at(-1)).toBeLessThanOrEqual(NOW / 1000);
      for (const c of body.candles.slice(0, 5)) expect(c.l).toBeLessThanOrEqual(Math.min(c.o, c.c));
      expect(body.observation.rowCount).toBe(CANDLE_RANGES[range].count);
    }
    expect((await get('/api/agent/market/1/candles')).json().range).toBe('1D');
  });

  it('converts prices to the fiat but keeps v in USD', async () => {
    const usd = (await get('/api/agent/market/1/candles?range=1W')).json();
    const eur = (await get('/api/agent/market/1/candles?range=1W&fiat=eur')).json();
    expect(eur.fiat).toBe('EUR');
    expect(eur.rateToUsd).toBeGreaterThan(0.5);
    expect(eur.rateToUsd).toBeLessThan(1.5);
    expect(eur.candles[10].c).toBeCloseTo(usd.candles[10].c * eur.rateToUsd, 6);
    expect(eur.candles[10].v).toBe(usd.candles[10].v);
  });

  it('answers 404 {error: coin_not_found} for an unknown coin and 400 for a bad range or fiat', async () => {
    const missing = await get('/api/agent/market/424242/candles');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('coin_not_found');
    const badRange = await get('/api/agent/market/1/candles?range=2D');
    expect(badRange.statusCode).toBe(400);
    expect(badRange.json().field).toBe('query.range');
    const badFiat = await get('/api/agent/market/1/candles?fiat=XYZ');
    expect(badFiat.statusCode).toBe(400);
    expect(badFiat.json().field).toBe('query.fiat');
    // the portfolio refuses the same unknown currency (it echoed "XYZ"), and shows a known one
    const portfolio = await get('/api/agent/portfolio?fiat=XYZ');
    expect([portfolio.statusCode, portfolio.json().field]).toEqual([400, 'query.fiat']);
    expect((await get('/api/agent/portfolio?fiat=eur')).json().fiat).toBe('EUR');
  });

  it('measures changes from the price it serves: within a minute every tick implies the same baseline', async () => {
    const baselines: number[][] = [];
    for (const at of [NOW + 30_000, NOW + 40_000, NOW + 50_000]) {
      sim.market.advanceTo(at);
      t.clock.set(at);
      const { price } = (await get('/api/agent/market/1')).json();
      baselines.push(['change1h', 'change24h', 'change7d'].map((f) => price.usd / (1 + price[f] / 100)));
    }
    t.clock.set(NOW);
    const [first, ...rest] = baselines;
    // changes are sent to 4 decimals, so the implied baselines agree to about 1e-6 of the price
    for (const b of rest) b.forEach((v, k) => expect(Math.abs(v / first![k]! - 1)).toBeLessThan(2e-6));
  });

  it('shows the newest minute bar growing with the 10-second ticks', async () => {
    sim.market.advanceTo(NOW + 25_000);
    const before = (await get('/api/agent/market/1/candles?range=1H')).json().candles.at(-1);
    expect(before.c).toBe(sim.market.price('1')!.priceUsd);
  });
});

describe('public movers', () => {
  it('lists the top gainers and losers by 24 h change as decimal strings', async () => {
    const gainers = await t.app.inject({ url: '/api/coins/top-gainers?limit=3' });
    expect(gainers.statusCode).toBe(200);
    const rows = gainers.json();
    expect(rows).toHaveLength(3);
    const changes = rows.map((r: { change24h: string }) => Number(r.change24h));
    expect(changes).toEqual([...changes].sort((a, b) => b - a));
    const losers = (await t.app.inject({ url: '/api/coins/top-losers' })).json();
    expect(losers).toHaveLength(3);
    expect(Number(losers[0].change24h)).toBeLessThanOrEqual(Number(losers[2].change24h));
    expect((await t.app.inject({ url: '/api/coins/top-gainers?limit=0' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/coins/top-gainers?limit=101' })).statusCode).toBe(400);
  });
});

keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/resolve?q=btc', scope: 'read' });
keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/market/1', scope: 'read' });
keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/market/1/candles', scope: 'read' });
