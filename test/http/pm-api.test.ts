import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forcePmResolution, readVenueMarket, relatedMarketsForCoin } from '../../src/pm/api.js';
import { pmReadModel } from '../../src/pm/read-model.js';
import { VENUE_IDS } from '../../src/pm/venues.js';
import { pmWhaleTrades } from '../../src/storage/schema.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';
import type { NewsCoin, NewsItem, NewsSource } from '../../src/news/types.js';

/** A wire with stories about whatever coins it is asked about: importance 0..6, the last one not enriched. */
const newsAsked: { coins: string[]; sinceMs: number; nowMs: number }[] = [];
const news: NewsSource = {
  mode: 'sim',
  async stories(coins: NewsCoin[], sinceMs: number, nowMs: number): Promise<NewsItem[]> {
    newsAsked.push({ coins: coins.map((c) => c.coinId), sinceMs, nowMs });
    return [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
      id: `story-${i}`,
      title: `${coins[0]!.symbol} story ${i}`,
      source: 'Wire',
      url: `https://news.example/${i}`,
      publishedAtMs: nowMs - i * 60_000,
      category: null,
      sentiment: i === 7 ? null : 'bullish',
      sentimentConfidence: i === 7 ? null : 0.5,
      importance: i === 7 ? null : i,
      coinIds: coins.map((c) => c.coinId),
      simulated: true,
    }));
  },
};

let t: PmTestApp;
beforeAll(async () => {
  t = await createPmApp({ config: { publicRpm: 100_000 }, news });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const PM = '/api/prediction-markets';
const EVENT_KEYS = ['slug', 'title', 'status', 'volume24h', 'outcomes', 'priceChange24h', 'priceChange7d', 'source', 'volume'];

async function openEvents(query = ''): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const r = await t.get(`${PM}/events?status=open&limit=100&offset=${offset}${query}`);
    out.push(...r.body.data);
    if (!r.body.pagination.hasMore) return out;
  }
}

describe('overview and events', () => {
  it('serves the overview with stats, highlights, categories, bySource and byCategory', async () => {
    const r = await t.get(`${PM}/overview`);
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toMatch(/max-age=\d+/);
    expect(r.headers['x-data-attribution']).toMatch(/Polymarket/);
    // Keyless, but under the per-IP public budget.
    expect(r.headers['ratelimit-limit']).toBe('100000');
    const { stats, highlights, categories, bySource, byCategory, updatedAt } = r.body;
    expect(stats.totalMarkets).toBe(stats.totalOpenMarkets + stats.totalClosedMarkets);
    expect(stats.totalOpenMarkets).toBeGreaterThan(50);
    for (const k of ['totalVolume', 'volume24h', 'totalLiquidity']) expect(stats[k]).toBeGreaterThan(0);
    expect(highlights.gainers.length).toBeGreaterThan(0);
    expect(highlights.gainers.every((e: any) => e.priceChange24h > 0)).toBe(true);
    expect(highlights.losers.every((e: any) => e.priceChange24h < 0)).toBe(true);
    expect(highlights.expiring.length).toBe(5);
    expect(categories.map((c: any) => c.slug)).toEqual(expect.arrayContaining(['crypto', 'politics', 'sports', 'economics']));
    expect(bySource.map((s: any) => s.source.id).sort()).toEqual([...VENUE_IDS].sort());
    expect(byCategory[0]).toHaveProperty('openMarkets');
    expect(Date.parse(updatedAt)).toBeGreaterThan(0);
  });

  it('lists event objects with every §2.12 field, sparkline and reference-probability rules', async () => {
    const r = await t.get(`${PM}/events`);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, hasMore: true, total: expect.any(Number) });
    expect(r.body.meta.sources).toHaveLength(12);
    expect(r.body.data).toHaveLength(20);
    for (const e of r.body.data) for (const k of EVENT_KEYS) expect(e).toHaveProperty(k);
    const open = await openEvents();
    for (const e of open) {
      expect(e.status).toBe('open');
      for (const o of e.outcomes) expect(o.probability).toBeGreaterThanOrEqual(0);
      if (e.sparkline) {
        expect(e.sparkline.series.length).toBeGreaterThanOrEqual(2);
        expect(e.sparkline.series.length).toBeLessThanOrEqual(50);
        expect(e.sparkline.series.every((p: number) => p >= 0 && p <= 1)).toBe(true);
        expect(e.outcomes.map((o: any) => o.externalMarketId)).toContain(e.sparkline.leaderOutcomeId);
      }
    }
    expect(open.filter((e) => e.sparkline).length).toBeGreaterThan(open.length / 2);
    const withRef = open.filter((e) => e.referenceProbability);
    expect(withRef.length).toBeGreaterThan(5);
    for (const e of withRef) {
      expect(e.canonicalEventId).toMatch(/^pmc_/);
      expect(e.referenceProbability.venueCount).toBeGreaterThanOrEqual(2);
      expect(e.referenceProbability.probability).toBeGreaterThanOrEqual(e.referenceProbability.kind === 'binary' ? 50 : 0);
      expect(e.referenceProbability.methodologyVersion).toBe('consensus_probability_v1');
    }
    // No reference on a market not matched to another venue.
    expect(open.filter((e) => !e.canonicalEventId).every((e) => !e.referenceProbability)).toBe(true);
    const closed = await t.get(`${PM}/events?status=closed&limit=50`);
    expect(closed.body.data.every((e: any) => e.status === 'closed' && !e.sparkline && !e.referenceProbability)).toBe(true);
  });

  it('flipped members agree with the consensus once oriented', async () => {
    const snap = await pmReadModel(t.ctx.database, t.ctx.clock).snapshot();
    let checked = 0;
    for (const [, members] of snap.clusters) {
      const open = members.filter((m) => m.status === 'open' && m.kind === 'binary');
      const same = open.find((m) => m.orientation === 'same');
      const flipped = open.find((m) => m.orientation === 'flipped');
      if (!same || !flipped) continue;
      const a = snap.refs.get(`${same.source}/${same.slug}`)!;
      const b = snap.refs.get(`${flipped.source}/${flipped.slug}`)!;
      expect(a.probability).toBeCloseTo(b.probability, 5);
      // The same real-world side leads on both: Yes on one wording is No on the flipped one.
      if (a.probability !== 50) expect(a.outcomeName === 'Yes').toBe(b.outcomeName === 'No');
      checked += 1;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('filters, searches, sorts and paginates', async () => {
    const poly = await t.get(`${PM}/events?source=kalshi&limit=100`);
    expect(poly.body.data.every((e: any) => e.source.id === 'kalshi')).toBe(true);
    const q = await t.get(`${PM}/events?q=bitcoin&limit=100`);
    expect(q.body.data.length).toBeGreaterThan(0);
    expect(q.body.data.every((e: any) => /bitcoin/i.test(e.title))).toBe(true);
    // Words of one or two characters match whole words only (reference B10): "xr" is no prefix search for XRP.
    expect((await t.get(`${PM}/events?q=xrp&limit=100`)).body.data.length).toBeGreaterThan(0);
    expect((await t.get(`${PM}/events?q=xr&limit=100`)).body.data.filter((e: any) => /xrp/i.test(e.title))).toEqual([]);
    const byVol = await t.get(`${PM}/events?sort=volume24h_desc&limit=50`);
    const vols = byVol.body.data.map((e: any) => e.volume24h);
    expect(vols).toEqual([...vols].sort((a, b) => b - a));
    const up = (await t.get(`${PM}/events?sort=priceChange24h_desc&status=open&limit=30`)).body.data.map((e: any) => e.priceChange24h).filter((x: any) => x !== null);
    expect(up).toEqual([...up].sort((a, b) => b - a));
    const down = (await t.get(`${PM}/events?sort=priceChange24h_asc&status=open&limit=30`)).body.data.map((e: any) => e.priceChange24h).filter((x: any) => x !== null);
    expect(down).toEqual([...down].sort((a, b) => a - b));
    const ends = (await t.get(`${PM}/events?sort=endDate_desc&limit=30`)).body.data.map((e: any) => Date.parse(e.endDate));
    expect(ends).toEqual([...ends].sort((a, b) => b - a));
    expect((await t.get(`${PM}/events?sort=trending&limit=5`)).status).toBe(200);
    const p1 = await t.get(`${PM}/events?limit=5&offset=0&sort=volume24h_desc`);
    const p2 = await t.get(`${PM}/events?limit=5&offset=5&sort=volume24h_desc`);
    expect(p1.body.data.map((e: any) => e.slug + e.source.id)).not.toEqual(expect.arrayContaining(p2.body.data.map((e: any) => e.slug + e.source.id)));
    const eur = await t.get(`${PM}/events?limit=1&sort=volume24h_desc&fiat=EUR`);
    expect(eur.body.data[0].volume24h).toBeLessThan(vols[0]);
  });

  it('narrows by tag (a category slug, any case) and to plausibly paper-tradeable markets (reference B10: both were ignored)', async () => {
    const all = (await t.get(`${PM}/events?limit=1`)).body.pagination.total as number;
    const category = ((await t.get(`${PM}/overview`)).body.categories as { slug: string; count: number }[]).find((c) => c.count > 0)!;
    const tagged = await t.get(`${PM}/events?tag=${category.slug.toUpperCase()}&limit=100`);
    expect(tagged.body.pagination.total).toBeGreaterThan(0);
    expect(tagged.body.pagination.total).toBeLessThan(all);
    expect(tagged.body.data.every((e: any) => e.category === category.slug)).toBe(true);
    expect((await t.get(`${PM}/events?tag=no-such-tag`)).body.pagination.total).toBe(0);

    const tradeable = await t.get(`${PM}/events?tradeable=true&limit=100`);
    expect(tradeable.body.pagination.total).toBeGreaterThan(0);
    expect(tradeable.body.pagination.total).toBeLessThan(all);
    for (const e of tradeable.body.data) {
      expect(['polymarket', 'kalshi']).toContain(e.source.id);
      expect([e.status, e.outcomes.length, e.resolvedOutcomeExternalMarketId ?? null]).toEqual(['open', 2, null]);
    }
    expect((await t.get(`${PM}/events?tradeable=true&status=closed`)).body.pagination.total).toBe(0);
    expect((await t.get(`${PM}/events?tradeable=false&limit=1`)).body.pagination.total).toBe(all);
    expect((await t.get(`${PM}/events?tradeable=maybe`)).status).toBe(400);
  });

  it('answers 400 for bad parameters, naming the field', async () => {
    const cases: [string, string][] = [
      ['q=', 'query.q'],
      ['q=%20%20', 'query.q'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['sort=hot', 'query.sort'],
      ['status=pending', 'query.status'],
      ['source=nowhere', 'query.source'],
      ['fiat=XYZ', 'query.fiat'],
    ];
    for (const [query, field] of cases) {
      const r = await t.get(`${PM}/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_request', field });
    }
  });

  it('cuts a long q to 80 characters and 6 words instead of refusing it (reference B10; it was 400 past 400 characters)', async () => {
    const short = await t.get(`${PM}/events?q=bitcoin`);
    const long = await t.get(`${PM}/events?q=${encodeURIComponent(`bitcoin ${'x'.repeat(2_000)}`)}`);
    expect(long.status).toBe(200);
    expect(long.body.meta.q).toBe(`bitcoin ${"x".repeat(72)}`);
    expect(short.body.data.length).toBeGreaterThan(0);
  });
});

describe('event detail, whales, price history', () => {
  it('serves every detail key; 404 for unknown source or slug', async () => {
    const open = await openEvents();
    const e = open.find((x) => x.referenceProbability && x.relatedCoins.length > 0) ?? open.find((x) => x.referenceProbability)!;
    const r = await t.get(`${PM}/events/${e.source.id}/${e.slug}`);
    expect(r.status).toBe(200);
    for (const k of ['event', 'relatedEvents', 'crossSourceMatches', 'resolution', 'referenceProbability', 'volumeHistory', 'relatedNews', 'topicRelatedCoins', 'agentsTradingMarket', 'recentWhaleTrades', 'translations']) {
      expect(r.body).toHaveProperty(k);
    }
    expect(r.body.event.slug).toBe(e.slug);
    expect(r.body.event.crossPlatform.length).toBe(r.body.crossSourceMatches.length);
    expect(r.body.event.outcomes[0].lifecycle).toMatchObject({ state: 'open', providerAcceptingOrders: true });
    expect(e.crossPlatform).toBeUndefined(); // lists stay small
    expect(r.body.referenceProbability).toEqual(e.referenceProbability);
    expect(r.body.crossSourceMatches.length).toBeGreaterThan(0);
    for (const m of r.body.crossSourceMatches) {
      expect(['same', 'flipped', 'unknown']).toContain(m.orientation);
      if (m.orientation === 'unknown') expect(m.probability).toBeNull();
    }
    expect(r.body.resolution.state).toBe('open');
    expect(r.body.volumeHistory.length).toBeGreaterThan(0);
    expect(r.body.volumeHistory[0]).toHaveProperty('date');
    if (e.relatedCoins.length) expect(r.body.topicRelatedCoins[0]).toHaveProperty('symbol');
    expect(r.body.relatedEvents.length).toBeLessThanOrEqual(6);
    expect((await t.get(`${PM}/events/nowhere/${e.slug}`)).status).toBe(404);
    const missing = await t.get(`${PM}/events/${e.source.id}/no-such-slug`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('event_not_found');
  });

  it('relatedNews: the most important enriched stories of the last 48 h about the topic coins; none without topic coins', async () => {
    const open = await openEvents();
    const withCoins = open.find((x) => x.relatedCoins.length > 0)!;
    const without = open.find((x) => x.relatedCoins.length === 0)!;
    newsAsked.length = 0;
    const r = await t.get(`${PM}/events/${withCoins.source.id}/${withCoins.slug}?fiat=EUR`);
    expect(newsAsked).toEqual([{ coins: r.body.topicRelatedCoins.map((c: { coinId: string }) => c.coinId), sinceMs: t.clock.now() - 48 * 3_600_000, nowMs: t.clock.now() }]);
    expect(r.body.relatedNews.map((n: { importance: number }) => n.importance)).toEqual([6, 5, 4, 3, 2]);
    expect(r.body.relatedNews[0]).toEqual({
      title: `${r.body.topicRelatedCoins[0].symbol} story 6`,
      source: 'Wire',
      url: 'https://news.example/6',
      publishedAt: new Date(t.clock.now() - 6 * 60_000).toISOString(),
      sentiment: 'bullish',
      importance: 6,
    });
    newsAsked.length = 0;
    expect((await t.get(`${PM}/events/${without.source.id}/${without.slug}`)).body.relatedNews).toEqual([]);
    expect(newsAsked).toEqual([]);
  });

  it('recentWhaleTrades keep usdValue in US dollars whatever the fiat (it was multiplied by the rate, under the same name)', async () => {
    const tape = (await t.get(`${PM}/whales`)).body.trades as { eventSlug: string; source: string; usdValue: number; tradedAt: string }[];
    const w = tape[0]!;
    const usd = (await t.get(`${PM}/events/${w.source}/${w.eventSlug}`)).body.recentWhaleTrades;
    const jpy = (await t.get(`${PM}/events/${w.source}/${w.eventSlug}?fiat=JPY`)).body.recentWhaleTrades;
    expect(jpy.map((x: { usdValue: number }) => x.usdValue)).toEqual(usd.map((x: { usdValue: number }) => x.usdValue));
    expect(usd.find((x: { tradedAt: string }) => x.tradedAt === w.tradedAt).usdValue).toBe(w.usdValue);
  });

  it('lists at most 50 large trades, newest first, money venues only', async () => {
    const r = await t.get(`${PM}/whales`);
    expect(r.status).toBe(200);
    expect(r.body.trades.length).toBeGreaterThan(0);
    expect(r.body.trades.length).toBeLessThanOrEqual(50);
    const times = r.body.trades.map((w: any) => Date.parse(w.tradedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const w of r.body.trades) {
      for (const k of ['wallet', 'traderName', 'side', 'outcome', 'marketQuestion', 'usdValue', 'price', 'tradedAt', 'event']) expect(w).toHaveProperty(k);
      expect(['manifold', 'metaculus']).not.toContain(w.event.source);
      expect(w.price).toBeGreaterThan(0);
      expect(w.price).toBeLessThan(1);
    }
  });

  it('serves native price history for polymarket and kalshi only', async () => {
    const poly = (await openEvents('&source=polymarket'))[0];
    const r = await t.get(`${PM}/event/polymarket/${poly.slug}/price-history`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ source: 'polymarket', slug: poly.slug, interval: '1w' });
    expect(r.body.points.length).toBeGreaterThan(2);
    const ts = r.body.points.map((p: any) => p.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(r.body.points.every((p: any) => Number.isInteger(p.t) && p.p >= 0 && p.p <= 1)).toBe(true);
    const day = await t.get(`${PM}/event/polymarket/${poly.slug}/price-history?interval=24h`);
    expect(day.body.interval).toBe('1d');
    expect(day.body.points.length).toBeLessThanOrEqual(r.body.points.length);
    expect((await t.get(`${PM}/event/polymarket/${poly.slug}/price-history?interval=weird`)).body.interval).toBe('1w');
    for (const name of ['toString', 'constructor', '__proto__']) {
      const inherited = await t.get(`${PM}/event/polymarket/${poly.slug}/price-history?interval=${name}`);
      expect([inherited.status, inherited.body.interval]).toEqual([200, '1w']); // a name every object has is no interval
    }
    const other = (await openEvents('&source=rothera'))[0];
    const none = await t.get(`${PM}/event/rothera/${other.slug}/price-history?interval=max`);
    expect(none.status).toBe(200);
    expect(none.body.points).toEqual([]);
    expect((await t.get(`${PM}/event/nowhere/x/price-history`)).status).toBe(404);
  });
});

describe('resolved, calibration, methodology, terms', () => {
  it('lists definitive resolutions newest first with provenance, and a per-venue summary', async () => {
    const r = await t.get(`${PM}/resolved?limit=30`);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toMatchObject({ limit: 30, offset: 0 });
    expect(r.body.totalResolved).toBeGreaterThan(100);
    for (const x of r.body.data) {
      expect(x.resolutionOutcome).toMatchObject({ basis: expect.stringMatching(/source|final_probability/) });
      expect(x.event.outcomes.map((o: any) => o.externalMarketId)).toContain(x.resolutionOutcome.externalMarketId);
      if (!x.resolvedAtVerified) expect(x.resolvedAt).toBeNull();
    }
    expect((await t.get(`${PM}/resolved`)).body.pagination.limit).toBe(24);
    const kal = await t.get(`${PM}/resolved?source=kalshi&limit=100`);
    expect(kal.body.data.every((x: any) => x.event.source.id === 'kalshi')).toBe(true);
    expect((await t.get(`${PM}/resolved?limit=101`)).status).toBe(400);
    const s = await t.get(`${PM}/resolved/summary?source=predictit`);
    expect(s.status).toBe(200);
    expect(s.body.earliestYear).toBe(2016);
    expect(s.body.byYear.reduce((a: number, y: any) => a + y.events, 0)).toBe(s.body.totalResolved);
    expect(s.body.providerTimeShare).toBeGreaterThanOrEqual(0);
    expect(s.body.providerTimeShare).toBeLessThanOrEqual(1);
    expect((await t.get(`${PM}/resolved/summary`)).status).toBe(400);
    expect((await t.get(`${PM}/resolved/summary?source=nowhere`)).status).toBe(400);
  });

  it('serves three labeled calibration series, each with its methodology', async () => {
    const r = await t.get(`${PM}/calibration`);
    expect(r.status).toBe(200);
    expect(r.body.leadHours).toBe(24);
    expect(typeof r.body.methodology).toBe('string');
    expect(r.body.scored.length + r.body.pending.length).toBe(12);
    for (const s of r.body.scored) {
      // Reference B6: empty bins are left out, so predictedMean/realizedRate are never null.
      expect(s.reliability.length).toBeGreaterThan(0);
      expect(s.reliability.length).toBeLessThanOrEqual(10);
      for (const b of s.reliability) {
        expect(b.pairs).toBeGreaterThan(0);
        expect(typeof b.predictedMean).toBe('number');
        expect(typeof b.realizedRate).toBe('number');
      }
      expect(s.calibrationError).toBeGreaterThanOrEqual(0);
    }
    for (const y of r.body.finalPrice.series.flatMap((s: any) => s.years)) expect(y.reliability.every((b: any) => b.pairs > 0 && b.predictedMean !== null)).toBe(true);
    expect(r.body.finalPrice).toMatchObject({ basis: 'venue_final_price', methodology: expect.any(String) });
    const years = r.body.finalPrice.series.flatMap((s: any) => s.years.map((y: any) => y.year));
    expect(Math.min(...years)).toBe(2016);
    // years only where the venue verified the resolution time: never more samples than verified resolutions
    let someUnverified = false;
    for (const series of r.body.finalPrice.series) {
      const summary = (await t.get(`${PM}/resolved/summary?source=${series.source}`)).body;
      someUnverified ||= summary.providerTimeShare < 1;
      const samples = series.years.reduce((n: number, y: any) => n + y.sampleSize, 0);
      expect(samples).toBeLessThanOrEqual(summary.providerTimeShare * summary.totalResolved + 0.01);
    }
    expect(someUnverified).toBe(true);
    expect(r.body.ownCapture).toMatchObject({ basis: 'own_last_capture', methodology: expect.any(String) });
    expect(r.body.ownCapture.leadTimes.length).toBeGreaterThan(0);
  });

  it('publishes the consensus methodology and the acceptable-use terms', async () => {
    const m = await t.get(`${PM}/consensus-methodology`);
    expect(m.body).toMatchObject({ schema: 'svc.consensusMethodology.v1', version: 'consensus_probability_v1', minVenues: 2 });
    // Reference B7: the method under `methodology` and the usage terms under `licence`.
    expect(m.body.methodology).toMatchObject({ minVenues: 2, steps: expect.any(Array), summary: expect.any(String) });
    expect(m.body.licence).toMatch(/attribution/);
    const terms = await t.get('/api/terms');
    expect(terms.status).toBe(200);
    expect(JSON.stringify(terms.body)).toMatch(/training, fine-tuning/);
    const openapi = await t.get('/openapi.json');
    expect(openapi.body.info.description).toContain('/api/terms');
  });
});

describe('canonical events', () => {
  it('pages clusters with members, orientation and consensus; 400 for a bad cursor; 404 for an unknown key', async () => {
    const first = await t.get(`${PM}/canonical?limit=5`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(5);
    const c = first.body.data[0];
    expect(c.canonicalEventId).toMatch(/^pmc_/);
    expect(c.venueCount).toBeGreaterThanOrEqual(2);
    expect(c.members.filter((m: any) => m.isAnchor)).toHaveLength(1);
    expect(c.members.every((m: any) => ['same', 'flipped', 'unknown'].includes(m.orientation))).toBe(true);
    const second = await t.get(`${PM}/canonical?limit=5&cursor=${first.body.nextCursor}`);
    expect(second.body.data[0].canonicalEventId).not.toBe(c.canonicalEventId);
    expect((await t.get(`${PM}/canonical?cursor=bogus`)).status).toBe(400);
    const one = await t.get(`${PM}/canonical/${c.canonicalEventId}`);
    expect(one.body.members).toEqual(c.members);
    expect((await t.get(`${PM}/canonical/pmc_0000000000000000`)).status).toBe(404);
  });
});

describe('reference conformance (reference-shapes B1–B6, B10, C9, C10)', () => {
  it('canonical list: identity keys, pagination {limit, nextCursor integer}, the integer cursor pages on', async () => {
    const first = await t.get(`${PM}/canonical?limit=3`);
    expect(first.body.pagination).toEqual({ limit: 3, nextCursor: 3 });
    for (const c of first.body.data) {
      expect(c.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(c.slug.endsWith(`-${c.uuid.slice(0, 8)}`)).toBe(true);
      expect(Number.isInteger(c.revision) && c.revision >= 1).toBe(true);
      expect(c.memberCount).toBe(c.members.length);
      expect(Date.parse(c.createdAt)).toBeLessThanOrEqual(Date.parse(c.updatedAt));
      for (const m of c.members) {
        expect(m).toMatchObject({ eventSlug: m.slug, eventTitle: m.title, eventStatus: m.status });
        expect(Number.isInteger(m.eventId)).toBe(true);
      }
    }
    const byInt = await t.get(`${PM}/canonical?limit=3&cursor=3`);
    const byOpaque = await t.get(`${PM}/canonical?limit=3&cursor=${first.body.nextCursor}`);
    expect(byInt.body.data.map((c: any) => c.uuid)).toEqual(byOpaque.body.data.map((c: any) => c.uuid));
    expect(byInt.body.data[0].uuid).not.toBe(first.body.data[0].uuid);
    expect((await t.get(`${PM}/canonical?limit=200`)).status).toBe(200);
    let cursor: number | null = 0;
    let pages = 0;
    while (cursor !== null) {
      const page: any = await t.get(`${PM}/canonical?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      cursor = page.body.pagination.nextCursor;
      pages += 1;
    }
    expect(pages).toBeGreaterThanOrEqual(1);
  });

  it('canonical detail: canonical, mergedInto, consensus (closed, binary = Yes side), lineage; found by uuid and slug', async () => {
    const list = (await t.get(`${PM}/canonical?limit=200`)).body.data;
    const c = list.find((x: any) => x.kind === 'binary' && x.referenceProbability) ?? list.find((x: any) => x.referenceProbability);
    const byUuid = await t.get(`${PM}/canonical/${c.uuid}`);
    expect(byUuid.status).toBe(200);
    const d = byUuid.body;
    expect(d.canonical).toMatchObject({ uuid: c.uuid, slug: c.slug, status: 'active', memberCount: c.members.length, revision: d.lineage.length });
    expect(d.mergedInto).toBeNull();
    expect(Object.keys(d.consensus).sort()).toEqual(['computedAt', 'kind', 'listings', 'methodologyVersion', 'outcomeName', 'probability', 'spreadPoints', 'venueCount']);
    expect(d.consensus.venueCount).toBe(c.referenceProbability.venueCount);
    for (const l of d.consensus.listings) expect(Object.keys(l).sort()).toEqual(['eventSlug', 'source']);
    if (d.consensus.kind === 'binary') {
      expect(d.consensus.outcomeName).toBeNull();
      const anchor = c.members.find((m: any) => m.isAnchor);
      const yes = anchor.outcomes[0].name;
      const expected = c.referenceProbability.outcomeName === yes ? c.referenceProbability.probability : Math.round((100 - c.referenceProbability.probability) * 10) / 10;
      expect(d.consensus.probability).toBeCloseTo(expected, 5);
    } else expect(typeof d.consensus.outcomeName).toBe('string');
    expect(d.consensusHistory).toEqual([]);
    expect(d.lineage[d.lineage.length - 1]).toMatchObject({ revision: 1, action: 'created', judgedBy: 'matcher' });
    expect(d.lineage.map((l: any) => l.revision)).toEqual([...d.lineage.map((l: any) => l.revision)].sort((a: number, b: number) => b - a));
    expect((await t.get(`${PM}/canonical/${c.slug}`)).body.canonical.uuid).toBe(c.uuid);
    expect((await t.get(`${PM}/canonical/${c.canonicalEventId}`)).body.canonical.uuid).toBe(c.uuid);
    expect((await t.get(`${PM}/canonical/some-title-0000abcd`)).status).toBe(404);
    expect((await t.get(`${PM}/canonical/00000000-0000-8000-8000-000000000000`)).status).toBe(404);
  });

  it('whales: coverage per money venue, stats24h, limit narrows (clamps above 50, never 400)', async () => {
    const all = await t.get(`${PM}/whales`);
    expect(all.body.coverage.map((c: any) => c.source)).toEqual(expect.arrayContaining(['polymarket', 'kalshi']));
    expect(all.body.coverage.map((c: any) => c.source)).not.toContain('manifold');
    for (const c of all.body.coverage) expect(['live', 'delayed', 'unavailable']).toContain(c.availability);
    expect(all.body.coverage.reduce((a: number, c: any) => a + c.tradeCount, 0)).toBe(all.body.trades.length);
    expect(all.body.stats24h).toMatchObject({ tradeCount: expect.any(Number), totalUsd: expect.any(Number) });
    const five = await t.get(`${PM}/whales?limit=5`);
    expect(five.body.trades).toEqual(all.body.trades.slice(0, 5));
    expect((await t.get(`${PM}/whales?limit=500`)).body.trades).toHaveLength(all.body.trades.length);
    const bad = await t.get(`${PM}/whales?limit=abc`);
    expect(bad.status).toBe(200);
    expect(bad.body.trades).toHaveLength(all.body.trades.length);
  });

  it('resolved: meta {totalResolved, minVolume, period}; year/month slices; month needs year; minVolume floors', async () => {
    const base = await t.get(`${PM}/resolved`);
    expect(base.body.meta).toEqual({ totalResolved: base.body.totalResolved, minVolume: null, period: null });
    const year = new Date(base.body.data[0].event.resolvedAt ?? base.body.data[0].closedAt ?? Date.now()).getUTCFullYear();
    const slice = await t.get(`${PM}/resolved?year=2020&limit=100`);
    expect(slice.status).toBe(200);
    expect(slice.body.meta.period).toEqual({ year: 2020, month: null });
    const m = await t.get(`${PM}/resolved?year=2020&month=6&limit=100`);
    expect(m.body.meta.period).toEqual({ year: 2020, month: 6 });
    expect(m.body.meta.totalResolved).toBeLessThanOrEqual(slice.body.meta.totalResolved);
    const noMonth = await t.get(`${PM}/resolved?month=6`);
    expect(noMonth.status).toBe(400);
    expect(noMonth.body).toMatchObject({ error: 'invalid_request', field: 'query.month' });
    for (const q of ['year=2009', `year=${new Date().getUTCFullYear() + 5}`, 'month=13&year=2020', 'minVolume=-1']) expect((await t.get(`${PM}/resolved?${q}`)).status, q).toBe(400);
    const floor = await t.get(`${PM}/resolved?minVolume=100000&limit=100`);
    expect(floor.body.meta).toMatchObject({ totalResolved: null, minVolume: 100000 });
    expect(floor.body.data.every((x: any) => x.event.volume >= 100000)).toBe(true);
    expect(typeof floor.body.totalResolved).toBe('number');
    expect(year).toBeGreaterThan(2000);
  });

  it('overview: source narrows every part, unknown source 400, status accepts open only', async () => {
    const k = await t.get(`${PM}/overview?source=kalshi`);
    expect(k.status).toBe(200);
    expect(k.body.bySource.map((s: any) => s.source.id)).toEqual(['kalshi']);
    expect(k.body.stats.totalMarkets).toBe(k.body.bySource[0].totalMarkets);
    for (const list of Object.values(k.body.highlights) as any[]) expect(list.every((e: any) => e.source.id === 'kalshi')).toBe(true);
    const all = await t.get(`${PM}/overview`);
    expect(k.body.stats.totalMarkets).toBeLessThan(all.body.stats.totalMarkets);
    const bad = await t.get(`${PM}/overview?source=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('query.source');
    expect((await t.get(`${PM}/overview?status=open`)).status).toBe(200);
    expect((await t.get(`${PM}/overview?status=weird`)).status).toBe(400);
  });

  it('events: pagination.total; representativeOutcome is the complete outcome (open only); priceBasis/sourceObservation split; marketSubtitle not repeated', async () => {
    const r = await t.get(`${PM}/events?status=open&limit=100&lead=representative`);
    expect(r.status).toBe(200);
    const all = await openEvents();
    expect(r.body.pagination.total).toBe(all.length);
    for (const e of all) {
      const rep = e.representativeOutcome;
      expect(e.marketSubtitle).toBeUndefined();
      const row = e.outcomes.find((o: any) => o.externalMarketId === rep.externalMarketId);
      const { lifecycle, ...rest } = rep;
      expect(rest).toEqual(row);
      expect(lifecycle).toMatchObject({ state: 'open' });
      const probs = e.outcomes.map((o: any) => o.probability);
      const inside = probs.filter((p: number) => p > 5 && p < 95);
      expect(rep.probability).toBe(inside.length ? Math.max(...inside) : Math.max(...probs));
      for (const o of e.outcomes) {
        if (['polymarket', 'kalshi'].includes(e.source.id)) expect(['book_mid', 'last_trade', 'unquoted']).toContain(o.priceBasis);
        else expect(o.priceBasis).toBeUndefined();
        if (['rothera', 'forecastex'].includes(e.source.id)) expect(o.sourceObservation).toMatchObject({ version: 1, provider: e.source.id, basis: expect.stringMatching(/provider_quote|last_price_untimed/) });
        else expect(o.sourceObservation).toBeNull();
      }
    }
    const closed = await t.get(`${PM}/events?status=closed&limit=50`);
    expect(closed.body.data.every((e: any) => !('representativeOutcome' in e))).toBe(true);
    const d = await t.get(`${PM}/events/${all[0].source.id}/${all[0].slug}`);
    expect(d.body.event.representativeOutcomeBasis).toBe('informative_leader');
    expect(d.body.event.representativeOutcome).toEqual(d.body.event.outcomes.find((o: any) => o.externalMarketId === d.body.event.representativeOutcome.externalMarketId));
    const c = closed.body.data[0];
    expect('representativeOutcomeBasis' in (await t.get(`${PM}/events/${c.source.id}/${c.slug}`)).body.event).toBe(false);
  });
});

describe('functions for other parts of the service', () => {
  it('relatedMarketsForCoin gives up to 3 open BTC markets with 0..1 probabilities', async () => {
    const list = await relatedMarketsForCoin(t.ctx.database, t.ctx.clock, '1');
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThanOrEqual(3);
    for (const m of list) {
      expect(m.probability).toBeGreaterThanOrEqual(0);
      expect(m.probability).toBeLessThanOrEqual(1);
      expect(m.decisionSupport).toHaveProperty('qualityTier');
      expect(m.title).toMatch(/Bitcoin/);
    }
    expect(await relatedMarketsForCoin(t.ctx.database, t.ctx.clock, '825')).toEqual([]);
  });

  it('readVenueMarket and forcePmResolution: a forced settlement is final across later ingests', async () => {
    const e = (await openEvents('&source=polymarket')).find((x) => x.outcomes.length === 2)!;
    const before = await readVenueMarket(t.ctx.database, t.ctx.clock, 'polymarket', e.slug);
    expect(before).toMatchObject({ status: 'open', resolution: null, freshness: { status: 'fresh' } });
    expect(before!.outcomes[0]!.bid).not.toBeNull();
    expect(before!.spread).toBeGreaterThan(0);
    const winner = before!.outcomes[1]!.externalMarketId;
    expect(await forcePmResolution(t.ctx.database, t.ctx.clock, { source: 'polymarket', slug: e.slug, winnerExternalMarketId: winner })).toBe(true);
    expect(await forcePmResolution(t.ctx.database, t.ctx.clock, { source: 'polymarket', slug: e.slug, winnerExternalMarketId: null })).toBe(false);
    t.clock.advance(30_000);
    await t.ingest.run(t.clock.now());
    const after = await readVenueMarket(t.ctx.database, t.ctx.clock, 'polymarket', e.slug);
    expect(after).toMatchObject({ status: 'closed', resolution: { state: 'resolved', winnerExternalMarketId: winner, winnerName: 'No' } });
    expect(await readVenueMarket(t.ctx.database, t.ctx.clock, 'polymarket', 'nope')).toBeNull();
  });
});

describe('changes between captures', () => {
  it("an event's 24 h change is its leading outcome's, read from the same prices", async () => {
    // a pass between captures: prices move, the sparkline does not
    t.clock.advance(60_000);
    await t.ingest.run(t.clock.now());
    const events = await openEvents();
    const compared = events.filter((e) => e.priceChange24h !== null);
    expect(compared.length).toBeGreaterThan(10);
    for (const e of compared) {
      const probs = e.outcomes.map((o: any) => o.probability);
      const lead = e.outcomes[probs.indexOf(Math.max(...probs))];
      const leader = e.outcomes.length === 2 && e.outcomes[0].name === 'Yes' ? e.outcomes[0] : lead;
      expect([e.slug, leader.priceChange24h]).toEqual([e.slug, e.priceChange24h]);
    }
  });
});

describe('whale tape', () => {
  it('stays 50 long when the newest large trades are play money (left out before the 50 are taken)', async () => {
    const before = (await t.get(`${PM}/whales`)).body.trades;
    expect(before.length).toBe(50);
    const at = new Date(t.clock.now());
    await t.ctx.database.db.insert(pmWhaleTrades).values(
      Array.from({ length: 20 }, (_, i) => ({
        id: `play-${i}`, source: 'manifold', slug: 'play', title: 'Play money', side: 'buy', outcome: 'Yes',
        usdValue: 50_000, price: 0.5, tradedAt: at, observedAt: at, evidenceType: 'venue_trade',
      })),
    );
    t.clock.advance(10_000); // past the list cache
    const after = (await t.get(`${PM}/whales`)).body.trades;
    const identity = (w: any) => `${w.event.source}/${w.event.slug} ${w.tradedAt} ${w.usdValue} ${w.evidenceRef}`;
    expect(after.map(identity)).toEqual(before.map(identity));
  });
});

