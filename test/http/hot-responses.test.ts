import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { RunningSimMarket } from '../../src/services/sim-market-boot.js';
import { ManualClock } from '../../src/util/clock.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/db.js';
import { createPmApp } from '../support/pm-app.js';
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

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers: { ...bearer(key), ...headers } });

describe('hot reads: serialized once per data version, ETag and 304', () => {
  for (const url of ['/api/agent/market/1/candles?range=1D', '/api/agent/market/1', '/api/agent/resolve?q=btc']) {
    it(`${url}: same data → 304 without a body (still a ledger row); new market data → 200 with a new tag`, async () => {
      const first = await get(url);
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
      const again = await get(url, { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers['x-service-ledger-status']).toBe('success');
      expect((await get(url, { 'if-none-match': '"other", ' + etag })).statusCode).toBe(304);
      expect((await get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200);
      // The repeated body is byte-identical in its cached part and parses to the same shape.
      const second = await get(url);
      expect(Object.keys(second.json())).toEqual(Object.keys(first.json()));
    });
  }

  it('a market tick changes the candle and context tags', async () => {
    const before = [(await get('/api/agent/market/1/candles')).headers.etag, (await get('/api/agent/market/1')).headers.etag];
    t.clock.set(NOW + 25_000);
    sim.market.advanceTo(NOW + 25_000);
    const candles = await get('/api/agent/market/1/candles', { 'if-none-match': before[0] as string });
    expect(candles.statusCode).toBe(200);
    expect(candles.headers.etag).not.toBe(before[0]);
    const context = await get('/api/agent/market/1', { 'if-none-match': before[1] as string });
    expect(context.statusCode).toBe(200);
    expect(context.json().observation.observedAt).toBe(new Date(NOW + 25_000).toISOString());
  });

  it('the ledger summary comes from the handler’s data (pre-serialized bodies included), not from re-parsing', async () => {
    const reader = await t.newKey(['read']);
    await t.app.inject({ url: '/api/agent/market/1/candles?range=1D', headers: bearer(reader.key) });
    await t.app.inject({ url: '/api/agent/market/1', headers: bearer(reader.key) });
    await t.app.inject({ url: '/api/agent/market/nope', headers: bearer(reader.key) });
    const rows = (await t.app.inject({ url: '/api/agent/ledger?limit=10', headers: bearer(reader.key) })).json().data as {
      endpoint: string;
      statusCode: number;
      responseSummary: Record<string, any>;
    }[];
    const byEndpoint = (e: string) => rows.find((r) => r.endpoint === e && r.statusCode === 200)!;
    const candles = byEndpoint('/api/agent/market/:coinId/candles').responseSummary;
    expect(candles.coin).toMatchObject({ ucid: '1', symbol: 'BTC' });
    expect(candles.candles.items).toBeGreaterThan(5); // arrays keep their length and first items
    expect(candles.candles.head).toHaveLength(5);
    expect(byEndpoint('/api/agent/market/:coinId').responseSummary.coin).toMatchObject({ coinId: '1' });
    const missing = rows.find((r) => r.statusCode === 404)!;
    expect(missing.responseSummary).toMatchObject({ error: 'coin_not_found' });
  });
});

describe('keyless PM lists: cached body with a strong ETag', () => {
  it('answers 304 on If-None-Match while the cached body is unchanged', async () => {
    const pm = await createPmApp();
    try {
      for (const url of ['/api/prediction-markets/events?limit=5', '/api/prediction-markets/overview']) {
        const first = await pm.app.inject({ url });
        expect(first.statusCode).toBe(200);
        const etag = first.headers.etag as string;
        expect(etag).toMatch(/^"[^"]+"$/);
        const again = await pm.app.inject({ url, headers: { 'if-none-match': etag } });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
      }
    } finally {
      await pm.close();
    }
  }, 120_000);
});

describe('keyless cached bodies: compressed once when the client accepts it', () => {
  it('answers br or gzip by Accept-Encoding, with a tag per coding, Vary, and 304 per coding', async () => {
    const pm = await createPmApp();
    try {
      for (const url of ['/api/prediction-markets/events?limit=20', '/api/prediction-markets/canonical?limit=10']) {
        const get = (headers: Record<string, string> = {}) => pm.app.inject({ url, headers });
        const plain = await get();
        expect(plain.statusCode).toBe(200);
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.headers.vary).toBe('Accept-Encoding');
        const tags = new Set([plain.headers.etag]);
        for (const [accept, coding] of [
          ['gzip, deflate', 'gzip'],
          ['gzip, deflate, br', 'br'],
          ['br;q=0.5, gzip', 'gzip'],
          ['*', 'br'],
        ] as const) {
          const packed = await get({ 'accept-encoding': accept });
          expect(packed.statusCode, accept).toBe(200);
          expect(packed.headers['content-encoding'], accept).toBe(coding);
          expect(packed.headers.vary).toBe('Accept-Encoding');
          const bytes = packed.rawPayload;
          expect(bytes.length, accept).toBeLessThan(plain.rawPayload.length / 3);
          expect((coding === 'gzip' ? gunzipSync(bytes) : brotliDecompressSync(bytes)).toString(), accept).toBe(plain.body);
          tags.add(packed.headers.etag);
          // The 304 is per representation: the compressed form's tag, asked with that coding.
          expect((await get({ 'accept-encoding': accept, 'if-none-match': packed.headers.etag as string })).statusCode).toBe(304);
          const other = await get({ 'if-none-match': packed.headers.etag as string });
          expect(other.statusCode).toBe(200);
          expect(other.body).toBe(plain.body);
        }
        expect(tags.size).toBe(3); // identity, gzip, br
        for (const refused of ['identity', 'gzip;q=0, br;q=0', 'deflate', 'br;q=0, *;q=0'])
          expect((await get({ 'accept-encoding': refused })).headers['content-encoding'], refused).toBeUndefined();
      }
    } finally {
      await pm.close();
    }
  }, 120_000);
});
