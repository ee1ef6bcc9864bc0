import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDLE_RANGES } from '../../src/domain/candles.js';
import type { RunningSimMarket } from '../../src/services/sim-market-boot.js';
import { ManualClock } from '../../src/util/clock.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { keyedRouteSecurity } from '../support/security.js';
import { startSmallMarket } from '../support/small-market.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const ALL = 'btc,eth,usdt,bnb,sol,xrp,doge,bch';
let t: TestApp;
let sim: RunningSimMarket;
let key: string;

beforeAll(async () => {
  const testDb = await freshDatabase();
  sim = await startSmallMarket(testDb.database.db, NOW);
  t = await createTestApp({ testDb, clock: new ManualClock(NOW), marketReads: sim.market });
  ({ key } = await t.newKey(['read']));
}, 120_000);
afterAll(async () => {
  await t.close();
  await t.testDb.drop();
});

const get = (url: string) => t.app.inject({ url, headers: bearer(key) });

describe('GET /api/agent/news (simulated wire)', () => {
  it('answers the resolved coin slugs and stories ordered by importance, then newest, marked simulated', async () => {
    const res = await get(`/api/agent/news?coins=${ALL}&hours=168&limit=25`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-service-ledger-event-id']).toBeDefined();
    const body = res.json();
    expect(body.mode).toBe('sim');
    expect(body.coins).toEqual(['bitcoin', 'ethereum', 'tether', 'bnb', 'solana', 'xrp', 'dogecoin', 'bitcoin-cash']);
    expect(body.items.length).toBeGreaterThan(0);
    for (let i = 1; i < body.items.length; i++) {
      const [a, b] = [body.items[i - 1], body.items[i]];
      expect(a.importance > b.importance || (a.importance === b.importance && a.publishedAt >= b.publishedAt)).toBe(true);
    }
    for (const item of body.items) {
      expect(item.simulated).toBe(true);
      expect(item.coins.every((c: string) => body.coins.includes(c))).toBe(true);
      expect(item.ageMinutes).toBe(Math.floor((NOW - Date.parse(item.publishedAt)) / 60_000));
      expect(item.ageMinutes).toBeLessThanOrEqual(168 * 60);
    }
  });

  it('tells the truth about the simulated market: a price story’s move is in the candles', async () => {
    const body = (await get(`/api/agent/news?coins=${ALL}&hours=168&limit=25`)).json();
    const price = body.items.filter((i: { url: string }) => i.url.startsWith('/coins/'));
    expect(price.length).toBeGreaterThan(0);
    const barMs = CANDLE_RANGES['1W'].barSeconds * 1000;
    for (const story of price) {
      const coinId = story.url.split('/')[2];
      const bars = sim.market.candles(coinId, '1W');
      const end = Date.parse(story.publishedAt);
      const at = bars.findIndex((b) => b.t * 1000 + barMs === end);
      const pct = ((bars[at]!.c - bars[at - 4]!.c) / bars[at - 4]!.c) * 100;
      expect(story.sentiment).toBe(pct > 0 ? 'bullish' : 'bearish');
      expect(story.title).toContain(`${Math.abs(pct).toFixed(1)}%`);
    }
  });

  it('honours limit, hours and minImportance', async () => {
    const all = (await get(`/api/agent/news?coins=${ALL}&hours=168&limit=25`)).json().items;
    expect((await get(`/api/agent/news?coins=${ALL}&hours=168&limit=1`)).json().items).toEqual(all.slice(0, 1));
    const min = Math.max(...all.map((i: { importance: number }) => i.importance));
    const top = (await get(`/api/agent/news?coins=${ALL}&hours=168&limit=25&minImportance=${min}`)).json().items;
    expect(top.length).toBeGreaterThan(0);
    expect(top.every((i: { importance: number }) => i.importance === min)).toBe(true);
    const recent = (await get(`/api/agent/news?coins=${ALL}&hours=1&limit=25`)).json().items;
    expect(recent.every((i: { ageMinutes: number }) => i.ageMinutes <= 60)).toBe(true);
  });

  it('refuses bad coin lists with 400 naming the field', async () => {
    for (const url of [
      '/api/agent/news',
      '/api/agent/news?coins=',
      '/api/agent/news?coins=,,',
      '/api/agent/news?coins=nosuchcoin',
      `/api/agent/news?coins=${Array.from({ length: 26 }, (_, i) => `c${i}`).join(',')}`,
      '/api/agent/news?coins=btc&limit=26',
      '/api/agent/news?coins=btc&hours=169',
      '/api/agent/news?coins=btc&minImportance=11',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toBe('invalid_request');
    }
    expect((await get('/api/agent/news?coins=nosuchcoin')).json().field).toBe('query.coins');
    // an agent told elsewhere to use coinIds learns what this route takes
    expect((await get('/api/agent/news?coins=1')).json().message).toMatch(/coins takes symbols or slugs \(btc, ethereum\), not coinIds/);
  });
});

keyedRouteSecurity(() => t, { method: 'GET', url: '/api/agent/news?coins=btc', scope: 'read' });
