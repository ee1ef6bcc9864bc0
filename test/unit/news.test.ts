import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Candle } from '../../src/domain/candles.js';
import { CryptoCompareNewsSource, enrich, parseNews, storyCoins } from '../../src/news/live-cryptocompare.js';
import { marketStories, priceStories } from '../../src/news/sim-wire.js';
import { rankStories, type NewsItem } from '../../src/news/types.js';
import { DEFAULT_HTTP } from '../../src/marketdata/live/http-json.js';

const BTC = { coinId: '1', symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin' };
const ETH = { coinId: '1027', symbol: 'ETH', name: 'Ethereum', slug: 'ethereum' };
const BAR_MS = 900_000;
const T0 = Date.UTC(2026, 10, 20);

/** 15-minute bars drifting ±0.1 % with one +4 % hour ending at bar `jumpAt`. */
function bars(n: number, jumpAt: number, jumpPct: number): Candle[] {
  let p = 100;
  return Array.from({ length: n }, (_, i) => {
    p *= i > jumpAt - 4 && i <= jumpAt ? 1 + jumpPct / 400 : i % 2 ? 1.001 : 0.999;
    return { t: (T0 + i * BAR_MS) / 1000, o: p, h: p, l: p, c: p, v: 1 };
  });
}

describe('simulated news wire', () => {
  it('turns an hour far beyond the usual hourly move into one dated price story with sentiment and importance', () => {
    const b = bars(200, 120, 4);
    const stories = priceStories({ coin: BTC, bars: b, barMs: BAR_MS }, T0, T0 + 200 * BAR_MS);
    expect(stories).toHaveLength(1);
    const [s] = stories;
    expect(s!.sentiment).toBe('bullish');
    expect(s!.title).toMatch(/^Bitcoin \(BTC\) jumps 4\.\d% in an hour/);
    expect(s!.publishedAtMs).toBe(T0 + 121 * BAR_MS);
    expect(s!.importance).toBeGreaterThanOrEqual(3);
    expect(s!.importance).toBeLessThanOrEqual(10);
    expect(s!.simulated).toBe(true);
    // A fall makes a bearish story; a window that ends before the move makes none.
    expect(priceStories({ coin: BTC, bars: bars(200, 120, -4), barMs: BAR_MS }, T0, T0 + 200 * BAR_MS)[0]!.sentiment).toBe('bearish');
    expect(priceStories({ coin: BTC, bars: b, barMs: BAR_MS }, T0, T0 + 100 * BAR_MS)).toHaveLength(0);
  });

  it('makes market stories only for requested coins with 10+ point moves', () => {
    const move = { coinId: '1', venueName: 'Polymarket', title: 'BTC above $100k?', outcome: 'Yes', probability: 64, changePoints: 12, atMs: T0, key: 'polymarket/x' };
    expect(marketStories([move, { ...move, changePoints: 4 }, { ...move, coinId: '5' }], [BTC], T0 - 1, T0 + 1)).toHaveLength(1);
  });

  it('ranks enriched stories by importance, then newest, and honours minImportance and limit', () => {
    const item = (id: string, importance: number | null, at: number): NewsItem => ({
      id, title: id, source: 's', url: '/', publishedAtMs: at, category: null, sentiment: importance === null ? null : 'neutral',
      sentimentConfidence: null, importance, coinIds: ['1'], simulated: true,
    });
    const ranked = rankStories([item('a', 5, 1), item('b', 9, 1), item('c', 5, 2), item('d', null, 3), item('e', 2, 4)], 3, 2);
    expect(ranked.map((i) => i.id)).toEqual(['b', 'c']);
  });
});

describe('live news adapter (CryptoCompare, recorded-format fixture)', () => {
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/cryptocompare/news.json', import.meta.url), 'utf8'));

  it('parses the rows that fit, links stories to coins and estimates sentiment', () => {
    const stories = parseNews(fixture);
    expect(stories.map((s) => s.id)).toEqual(['48213377', '48213201', '48213100']);
    expect(storyCoins(stories[0]!, [BTC, ETH])).toEqual(['1']);
    expect(storyCoins(stories[1]!, [BTC, ETH])).toEqual(['1027']);
    expect(enrich(stories[0]!, ['1'])).toMatchObject({ sentiment: 'bullish', importance: 8, source: 'Example Wire', simulated: false });
    expect(enrich(stories[1]!, ['1027'])).toMatchObject({ sentiment: 'bearish', importance: 8 });
    expect(() => parseNews({ nope: true })).toThrow(/Data/);
  });

  it('serves the last good batch from memory and keeps it when a refresh fails', async () => {
    let fail = false;
    const fetch = async () => {
      if (fail) return { ok: false, status: 503, headers: { get: () => null }, json: async () => ({}) };
      return { ok: true, status: 200, headers: { get: () => null }, json: async () => fixture };
    };
    const source = new CryptoCompareNewsSource({ ...DEFAULT_HTTP, retries: 0, sleep: async () => undefined, fetch });
    const now = 1763896000_000;
    expect(await source.refresh(now)).toBe(3);
    expect((await source.stories([BTC, ETH], now - 86_400_000, now)).map((s) => s.id)).toEqual(['cc-48213377', 'cc-48213201']);
    fail = true;
    await expect(source.refresh(now)).rejects.toThrow();
    expect(await source.stories([ETH], now - 86_400_000, now)).toHaveLength(1);
  });
});
