import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { parseFearGreed } from '../../src/marketdata/live/alternative-me.js';
import { mapCoinGeckoIds, parseExchangeRates, parseMarketChart, parseMarkets } from '../../src/marketdata/live/coingecko.js';
import { getJson, SourceError } from '../../src/marketdata/live/http-json.js';
import { SampleMarket } from '../../src/marketdata/live/sample-market.js';
import { SampleSeries } from '../../src/marketdata/live/sample-series.js';
import { ManualClock } from '../../src/util/clock.js';
import { smallUniverse } from '../support/small-market.js';
import { fastHttp, fixture, FixtureFetch } from '../support/live-fixtures.js';

describe('live configuration', () => {
  it('validates the poll interval, back-fill count and API key', () => {
    const config = loadConfig({ MARKET_DATA: 'live' });
    expect(config).toMatchObject({ marketData: { kind: 'live' }, livePollSeconds: 60, liveBackfillCoins: 20, coingeckoApiKey: null });
    expect(loadConfig({ LIVE_POLL_SECONDS: '30', LIVE_BACKFILL_COINS: '0', COINGECKO_API_KEY: 'CG-abc' })).toMatchObject({ livePollSeconds: 30, liveBackfillCoins: 0, coingeckoApiKey: 'CG-abc' });
    expect(() => loadConfig({ LIVE_POLL_SECONDS: '300' })).toThrow(/LIVE_POLL_SECONDS must be an integer between 15 and 110/);
    expect(() => loadConfig({ LIVE_BACKFILL_COINS: '-1' })).toThrow(/LIVE_BACKFILL_COINS/);
  });
});

describe('getJson: timeouts and retries with backoff', () => {
  it('retries 5xx and 429 with doubling backoff, then answers', async () => {
    let n = 0;
    const f = new FixtureFetch([[/x/, () => (++n < 3 ? { status: n === 1 ? 503 : 429 } : { fine: true })]]);
    const sleeps: number[] = [];
    expect(await getJson('https://example.test/x', fastHttp(f.fetch, sleeps))).toEqual({ fine: true });
    expect(f.calls).toHaveLength(3);
    expect(sleeps).toEqual([1000, 2000]);
  });

  it('gives up after the retries with a SourceError; a 404 is not retried', async () => {
    const down = new FixtureFetch([]);
    down.down = true;
    await expect(getJson('https://example.test/x?key=secret', fastHttp(down.fetch))).rejects.toThrow(SourceError);
    expect(down.calls).toHaveLength(3);
    await expect(getJson('https://example.test/x?key=secret', fastHttp(down.fetch))).rejects.not.toThrow(/secret/);
    const missing = new FixtureFetch([]);
    await expect(getJson('https://example.test/nothing', fastHttp(missing.fetch))).rejects.toMatchObject({ status: 404 });
    expect(missing.calls).toHaveLength(1);
  });

  it('aborts a source that does not answer within the timeout', async () => {
    const slow = new FixtureFetch([[/x/, () => 'hang']]);
    await expect(getJson('https://example.test/x', { ...fastHttp(slow.fetch), retries: 1 })).rejects.toThrow(/timed out after 50 ms/);
    expect(slow.calls).toHaveLength(2);
  });
});

describe('CoinGecko responses', () => {
  it('reads /coins/markets rows with the 1h/24h/7d changes; unknown market cap (0) reads as null', () => {
    const rows = parseMarkets(fixture('coingecko/markets-page-1.json'));
    const btc = rows.find((r) => r.id === 'bitcoin')!;
    expect(btc).toMatchObject({ symbol: 'btc', name: 'Bitcoin', marketCapRank: 1, lastUpdatedMs: Date.parse('2026-11-22T12:00:10.000Z') });
    expect(btc.quote).toEqual({ priceUsd: 97012, volume24hUsd: 31840211963, marketCapUsd: 1934812339456, change1h: 0.12, change24h: 1.84, change7d: -3.21 });
    expect(rows.find((r) => r.id === 'bnb-wormhole')!.quote.marketCapUsd).toBeNull();
    expect(parseMarkets([{ id: 'broken', symbol: 'x', name: 'X', current_price: null }, 'junk'])).toEqual([]);
    expect(() => parseMarkets({ error: 'rate limited' })).toThrow(TypeError);
  });

  it('maps CoinGecko ids to our coins by slug, then by symbol and name (best rank wins)', () => {
    const mapping = mapCoinGeckoIds(smallUniverse(), parseMarkets(fixture('coingecko/markets-page-1.json')));
    expect(Object.fromEntries(mapping)).toEqual({
      bitcoin: '1',
      ethereum: '1027',
      tether: '825',
      binancecoin: '1839', // CoinMarketCap slug "bnb"; the rank-880 look-alike loses
      solana: '5426',
      dogecoin: '74',
      'bitcoin-cash': '1831',
    });
  });

  it('reads market_chart history as samples in unix seconds with the 24 h volume', () => {
    const samples = parseMarketChart(fixture('coingecko/market-chart-bitcoin-1.json'));
    expect(samples).toHaveLength(289);
    expect(samples[0]).toEqual({ t: expect.any(Number), price: expect.any(Number), volume24hUsd: expect.any(Number) });
    expect(samples.at(-1)!.t).toBe(Math.floor((Date.UTC(2026, 10, 22, 12, 0, 30) - 90_000) / 1000));
    expect(samples.every((s, k) => k === 0 || s.t > samples[k - 1]!.t)).toBe(true);
  });

  it('turns /exchange_rates (per BTC) into fiat units per USD', () => {
    const rates = parseExchangeRates(fixture('coingecko/exchange-rates.json'));
    expect(rates.USD).toBe(1);
    expect(rates.EUR).toBeCloseTo(83430.3 / 97012, 10);
    expect(rates.JPY).toBeCloseTo(147.0, 0);
    expect(rates).not.toHaveProperty('XAU');
  });
});

describe('alternative.me Fear & Greed', () => {
  it('reads the latest value, its label and its day', () => {
    expect(parseFearGreed(fixture('alternative-me/fng.json'))).toEqual({ fearGreed: { value: 38, label: 'Fear' }, asOfMs: Date.UTC(2026, 10, 22) });
    expect(() => parseFearGreed({ data: [], metadata: { error: 'oops' } })).toThrow(TypeError);
    for (const value of [null, '', undefined]) expect(() => parseFearGreed({ data: [{ value, value_classification: 'Fear', timestamp: '1795305600' }] }), String(value)).toThrow(TypeError); // was 0, Extreme Fear
    expect(parseFearGreed({ data: [{ value: '80', value_classification: 'Very Greedy', timestamp: 'x' }] }).fearGreed).toEqual({ value: 80, label: 'Extreme Greed' });
  });
});

describe('SampleMarket', () => {
  it('derives missing changes from its samples and market cap from supply; candles end at the clock', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const m = new SampleMarket(smallUniverse(), { source: 'replay', clock });
    const start = clock.now();
    m.ingest({ tMs: start, quotes: { '1': { priceUsd: 100 } } });
    expect(m.quote('1')).toMatchObject({ change1h: null, change24h: null, volume24hUsd: 0, sentiment: { bullishPct: null } });
    m.ingest({ tMs: start + 3_600_000, quotes: { '1': { priceUsd: 110, volume24hUsd: 5, bullishVotes: 3, bearishVotes: 1 } } });
    const q = m.quote('1')!;
    expect(q.change1h).toBeCloseTo(10, 10);
    expect(q.change24h).toBeNull();
    expect(q.marketCapUsd).toBe(110 * smallUniverse().find((c) => c.coinId === '1')!.circulatingSupply);
    expect(q.sentiment).toEqual({ bullishVotes: 3, bearishVotes: 1, totalVotes: 4, bullishPct: 75 });
    clock.set(start + 3 * 3_600_000);
    const bars = m.candles('1', '1D');
    expect(bars.at(-1)).toMatchObject({ t: (start + 3 * 3_600_000) / 1000, c: 110 }); // flat bars up to now
    expect(bars[0]).toMatchObject({ t: start / 1000, o: 100 });
    expect(m.priceRange('1', start + 60_000, start + 2 * 3_600_000)).toEqual({ low: 100, high: 110 });
    expect(m.candles('424242', '1D')).toEqual([]);
  });
});

describe('SampleSeries', () => {
  it('keeps samples in time order, replacing a repeated second', () => {
    const s = new SampleSeries();
    for (const [t, p] of [[100, 1], [300, 3], [200, 2], [300, 4]] as const) s.add(t, p, 10);
    expect([0, 1, 2].map((k) => [s.timeAt(k), s.priceAt(k)])).toEqual([[100, 1], [200, 2], [300, 4]]);
    expect(s.length).toBe(3);
  });

  it('counts the price in force at the window start in a range', () => {
    const s = new SampleSeries();
    s.add(100, 10, 0);
    s.add(200, 12, 0);
    s.add(300, 9, 0);
    expect(s.range(150, 250)).toEqual({ low: 10, high: 12 });
    expect(s.range(200, 400)).toEqual({ low: 9, high: 12 });
    expect(s.range(0, 50)).toBeNull();
  });

  it('thins old samples to the last of each slot and drops what no range shows', () => {
    const s = new SampleSeries();
    const now = 100 * 86_400;
    for (let t = now - 95 * 86_400; t <= now; t += 60) s.add(t, 1 + (t % 7), 1);
    const before = s.length;
    s.thin(now);
    expect(s.length).toBeLessThan(before / 10);
    expect(s.timeAt(0)).toBeGreaterThanOrEqual(now - 92 * 86_400);
    // The last two hours keep every sample.
    expect(s.length - s.firstAtOrAfter(now - 2 * 3600)).toBe(121);
    expect(s.last()!.t).toBe(now);
  });
});
