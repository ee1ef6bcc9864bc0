import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PmIngest } from '../../src/pm/ingest.js';
import { KALSHI_URL, kalshiMarketUrl, parseKalshi } from '../../src/pm/live/kalshi.js';
import { MANIFOLD_URL, manifoldMarketUrl, parseManifold } from '../../src/pm/live/manifold.js';
import { POLYMARKET_URL, parsePolymarket, polymarketMarketUrl } from '../../src/pm/live/polymarket.js';
import { liveAdapters } from '../../src/pm/live/index.js';
import { SimWorld } from '../../src/pm/sim/world.js';
import { loadPmMarkets, pmDataPresence, venueHealth } from '../../src/storage/pm-repo.js';
import { createTestApp, type TestApp } from '../support/app.js';

const fixture = (path: string) => JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));
const NOW = Date.UTC(2026, 10, 22, 12);

/** A fetch that serves the recorded responses and fails the venues named in `down`. No network. */
function recordedFetch(down: Set<string>, polymarket: unknown = fixture('polymarket/markets.json')): typeof fetch {
  const routes: Record<string, unknown> = {
    [POLYMARKET_URL]: polymarket,
    [KALSHI_URL]: fixture('kalshi/markets.json'),
    [MANIFOLD_URL]: fixture('manifold/search-markets.json'),
  };
  return (async (input: string | URL | Request) => {
    const url = String(input);
    const host = new URL(url).host;
    if ([...down].some((d) => host.includes(d))) return new Response('upstream unavailable', { status: 503 });
    if (!(url in routes)) throw new Error(`unexpected request to ${url}`);
    return new Response(JSON.stringify(routes[url]), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

describe('live venue adapters (recorded responses)', () => {
  it('parses Polymarket Gamma markets (binary and multi-outcome; skips unpriced)', () => {
    const markets = parsePolymarket(fixture('polymarket/markets.json'), NOW);
    expect(markets).toHaveLength(2);
    const btc = markets[0]!;
    expect(btc).toMatchObject({ source: 'polymarket', kind: 'binary', status: 'open', category: 'crypto', coinIds: ['1'], volume24h: 523456.78, liquidity: 412345.67 });
    expect(btc.outcomes[0]).toMatchObject({ name: 'Yes', probability: 8.5, bid: 8.4, ask: 8.6 });
    expect(btc.outcomes[1]).toMatchObject({ name: 'No', probability: 91.5, bid: 91.4, ask: 91.6 });
    expect(markets[1]!.kind).toBe('multi');
    expect(markets[1]!.outcomes.map((o) => o.probability)).toEqual([2, 61, 36, 1]);
  });

  it('parses Kalshi markets (cents → points, liquidity in dollars)', () => {
    const markets = parseKalshi(fixture('kalshi/markets.json'), NOW);
    expect(markets).toHaveLength(2);
    expect(markets[0]).toMatchObject({ source: 'kalshi', slug: 'kxbtcd-26dec31-t120000', coinIds: ['1'], liquidity: 28997.12 });
    expect(markets[0]!.outcomes[0]).toMatchObject({ probability: 28, bid: 27, ask: 29 });
    expect(markets[0]!.outcomes[1]).toMatchObject({ probability: 72, bid: 71, ask: 73 });
  });

  it('parses Manifold binary markets and skips other types', () => {
    const markets = parseManifold(fixture('manifold/search-markets.json'), NOW);
    expect(markets).toHaveLength(1);
    expect(markets[0]).toMatchObject({ source: 'manifold', coinIds: ['1', '1027'], status: 'open' });
    expect(markets[0]!.outcomes.map((o) => o.probability)).toEqual([7.3, 92.7]);
  });

  it('skips a null or non-object row instead of rejecting the whole answer', () => {
    const poly = fixture('polymarket/markets.json') as unknown[];
    expect(parsePolymarket([null, 7, ...poly], NOW)).toEqual(parsePolymarket(poly, NOW));
    const kalshi = fixture('kalshi/markets.json') as { markets: unknown[] };
    expect(parseKalshi({ ...kalshi, markets: [null, ...kalshi.markets] }, NOW)).toEqual(parseKalshi(kalshi, NOW));
    const manifold = fixture('manifold/search-markets.json') as unknown[];
    expect(parseManifold([...manifold, null], NOW)).toEqual(parseManifold(manifold, NOW));
  });

  it('reads a time given in seconds as seconds (it was read as ms: 1970, and positions on it voided)', () => {
    const manifold = fixture('manifold/search-markets.json') as { closeTime: number }[];
    const inSeconds = manifold.map((m) => ({ ...m, closeTime: Math.floor(m.closeTime / 1000) }));
    expect(parseManifold(inSeconds, NOW).map((m) => m.endAtMs)).toEqual(parseManifold(manifold, NOW).map((m) => Math.floor(m.endAtMs! / 1000) * 1000));
  });

  it('rejects a response of the wrong shape', () => {
    expect(() => parsePolymarket({ error: 'x' }, NOW)).toThrow();
    expect(() => parseKalshi([], NOW)).toThrow();
  });
});

describe('ingest with a failing venue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a failing venue degrades only its own freshness', async () => {
    const down = new Set<string>();
    const sim = new SimWorld('live-test', 'realistic').adapters().filter((a) => a.source === 'rothera');
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-test', profile: 'realistic', adapters: [...liveAdapters(recordedFetch(down)), ...sim] });
    await ingest.run(NOW);
    const first = await loadPmMarkets(t.ctx.database.db);
    expect(new Set(first.map((m) => m.source))).toEqual(new Set(['polymarket', 'kalshi', 'manifold', 'rothera']));

    down.add('kalshi');
    await ingest.run(NOW + 120_000);
    const health = new Map((await venueHealth(t.ctx.database.db)).map((h) => [h.source, h]));
    expect(health.get('kalshi')).toMatchObject({ consecutiveFailures: 1, lastSuccessAt: new Date(NOW) });
    expect(health.get('kalshi')!.lastError).toMatch(/503/);
    expect(health.get('polymarket')).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: new Date(NOW + 120_000) });
    const rows = await loadPmMarkets(t.ctx.database.db);
    const last = (s: string) => rows.filter((r) => r.source === s).map((r) => r.updatedAt.getTime());
    expect(Math.max(...last('kalshi'))).toBe(NOW);
    expect(Math.max(...last('polymarket'))).toBe(NOW + 120_000);
    expect(Math.max(...last('rothera'))).toBe(NOW + 120_000);
  });

  it('a market that leaves its venue list is read on its own: stored resolved (its positions can settle), at most every 10 minutes', async () => {
    const poly = fixture('polymarket/markets.json') as Record<string, unknown>[];
    const kalshi = fixture('kalshi/markets.json') as { markets: Record<string, unknown>[] };
    const manifold = fixture('manifold/search-markets.json') as Record<string, unknown>[];
    const [p0, k0, m0] = [poly[0]!, kalshi.markets[0]!, manifold[0]!];
    let listed = true;
    const asked: string[] = [];
    const resolvedAt = '2026-11-23T15:00:00Z';
    const routes = (): Record<string, unknown> => ({
      [POLYMARKET_URL]: listed ? poly : poly.slice(1),
      [KALSHI_URL]: listed ? kalshi : { ...kalshi, markets: kalshi.markets.slice(1) },
      // (another market stays listed: a list with no usable market is a failed answer)
      [MANIFOLD_URL]: listed ? manifold : [{ ...m0, id: 'still-listed', slug: 'still-listed' }, ...manifold.slice(1)],
      // as the venues answer for a single market once it has resolved
      [polymarketMarketUrl(String(p0.slug))]: [{ ...p0, closed: true, active: false, outcomePrices: '["1", "0"]', closedTime: resolvedAt }],
      [kalshiMarketUrl(String(k0.ticker).toLowerCase())]: { market: { ...k0, status: 'settled', result: 'no', settlement_time: resolvedAt } },
      [manifoldMarketUrl(String(m0.slug))]: { ...m0, isResolved: true, resolution: 'YES', resolutionTime: Date.parse(resolvedAt) },
    });
    const fetchImpl = (async (input: string | URL | Request) => {
      const url = String(input);
      asked.push(url);
      const body = routes()[url];
      return body === undefined ? new Response('{}', { status: 404 }) : new Response(JSON.stringify(body), { status: 200 });
    }) as typeof fetch;
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-lookup', profile: 'realistic', adapters: liveAdapters(fetchImpl) });
    const at = NOW + 10 * 3_600_000;
    await ingest.run(at);
    listed = false;
    await ingest.run(at + 60_000);
    const rows = await loadPmMarkets(t.ctx.database.db);
    const row = (source: string, slug: string) => rows.find((r) => r.source === source && r.slug === slug)!;
    expect(row('polymarket', String(p0.slug))).toMatchObject({ status: 'closed', resolutionState: 'resolved' });
    expect(row('kalshi', String(k0.ticker).toLowerCase())).toMatchObject({ status: 'closed', resolutionState: 'resolved', winnerExternalId: `${k0.ticker}:no` });
    expect(row('manifold', String(m0.slug))).toMatchObject({ status: 'closed', resolutionState: 'resolved' });
    // settled markets are not asked again; the other markets no list shows (earlier tests' seeds) only every 10 minutes
    const single = () => asked.filter((u) => !u.includes('?active=') && !u.includes('?status=open') && !u.includes('search-markets')).length;
    const before = single();
    await ingest.run(at + 2 * 60_000);
    expect(single()).toBe(before);
    expect(asked.filter((u) => u === polymarketMarketUrl(String(p0.slug)))).toHaveLength(1);
  });

  it('does not store a market whose prices are off the 0..100 scale (a venue changed its units)', async () => {
    const poly = fixture('polymarket/markets.json') as Record<string, unknown>[];
    const scaled = [{ ...poly[0]!, outcomePrices: '["1.7", "-0.7"]' }, ...poly.slice(1)];
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-scale', profile: 'realistic', adapters: liveAdapters(recordedFetch(new Set(), scaled)) });
    const at = NOW + 30 * 3_600_000;
    await ingest.run(at);
    const rows = (await loadPmMarkets(t.ctx.database.db)).filter((r) => r.source === 'polymarket');
    expect(rows.find((r) => r.slug === poly[0]!.slug)!.updatedAt.getTime()).toBeLessThan(at);
    expect(rows.find((r) => r.slug === poly[1]!.slug)!.updatedAt.getTime()).toBe(at);
  });

  it('asks the live venues at once: a hanging venue costs one timeout, not one each (they were asked in turn)', async () => {
    // each answers only once all three have been asked: asked in turn, the first would wait for good
    const started: string[] = [];
    let release!: () => void;
    const allAsked = new Promise<void>((resolve) => (release = resolve));
    const adapters = liveAdapters(recordedFetch(new Set())).map((a) => ({
      ...a,
      async fetch(nowMs: number, sinceMs: number) {
        started.push(a.source);
        if (started.length === 3) release();
        await allAsked;
        return a.fetch(nowMs, sinceMs);
      },
    }));
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-together', profile: 'realistic', adapters });
    await ingest.run(NOW + 40 * 3_600_000);
    expect(started.sort()).toEqual(['kalshi', 'manifold', 'polymarket']);
  });

  it('a failing venue is asked once a minute, not on every 15 s run', async () => {
    const asked: string[] = [];
    const inner = recordedFetch(new Set(['kalshi']));
    const counting = (async (input: string | URL | Request) => (asked.push(String(input)), inner(input as string))) as typeof fetch;
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-throttle', profile: 'realistic', adapters: liveAdapters(counting) });
    const at = NOW + 20 * 3_600_000;
    for (const dt of [0, 15_000, 30_000, 45_000, 60_000]) await ingest.run(at + dt);
    expect(asked.filter((u) => u === KALSHI_URL)).toHaveLength(2);
    expect(asked.filter((u) => u === POLYMARKET_URL)).toHaveLength(2);
  });

  it('a market listed twice in one answer is taken once; the other venues are stored (the run failed for all)', async () => {
    const poly = fixture('polymarket/markets.json') as unknown[];
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-dup', profile: 'realistic', adapters: liveAdapters(recordedFetch(new Set(), [...poly, poly[0]])) });
    const at = NOW + 3_600_000;
    await ingest.run(at);
    const rows = await loadPmMarkets(t.ctx.database.db);
    for (const source of ['polymarket', 'kalshi', 'manifold']) {
      // this run stored the venue's markets (the failed run stored none)
      expect(rows.filter((r) => r.source === source).some((r) => r.updatedAt.getTime() === at), source).toBe(true);
    }
  });

  it('a live list with no usable market is a failed attempt, not fresh data (readiness stops waiting for its history)', async () => {
    const poly = fixture('polymarket/markets.json') as Record<string, unknown>[];
    // nothing parses but one market, and its prices are off the 0..100 scale
    const unusable = [null, { question: 'no prices' }, { ...poly[0]!, outcomePrices: '["1.7", "-0.7"]' }];
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-empty', profile: 'realistic', adapters: liveAdapters(recordedFetch(new Set(), unusable)) });
    await ingest.run(NOW + 55 * 3_600_000);
    const health = new Map((await venueHealth(t.ctx.database.db)).map((h) => [h.source, h]));
    expect(health.get('polymarket')).toMatchObject({ lastError: 'the answer held no usable market' });
    expect(health.get('polymarket')!.consecutiveFailures).toBeGreaterThan(0);
    expect(health.get('kalshi')).toMatchObject({ consecutiveFailures: 0, lastError: null });
    expect((await pmDataPresence(t.ctx.database.db, ['polymarket', 'kalshi'])).failingSources).toEqual(['polymarket']);
  });

  it('a lookup cut short by two failures leaves the markets it did not ask due on the next run (they waited 10 minutes)', async () => {
    const poly = fixture('polymarket/markets.json') as Record<string, unknown>[];
    const gone = [1, 2, 3, 4, 5].map((i) => ({ ...poly[0]!, id: `gone-${i}`, slug: `lookup-cut-${i}` }));
    let listed = true;
    const single: string[][] = [[]];
    const fetchImpl = (async (input: string | URL | Request) => {
      const url = String(input);
      if (url === POLYMARKET_URL) return new Response(JSON.stringify(listed ? [...poly, ...gone] : poly), { status: 200 });
      if (url === KALSHI_URL || url === MANIFOLD_URL) return recordedFetch(new Set())(url);
      if (url.includes('lookup-cut-')) single.at(-1)!.push(url); // a single-market read: the venue is failing
      return new Response('upstream unavailable', { status: 503 });
    }) as typeof fetch;
    const ingest = new PmIngest(t.ctx.database, { seed: 'live-lookup-cut', profile: 'realistic', adapters: liveAdapters(fetchImpl) });
    const at = NOW + 60 * 3_600_000; // after the other tests' runs on this database
    await ingest.run(at);
    listed = false;
    for (const dt of [60_000, 120_000, 180_000, 240_000]) {
      single.push([]);
      await ingest.run(at + dt);
    }
    const [, first, second, third, fourth] = single.map((urls) => urls.map((u) => u.slice(u.indexOf('lookup-cut-'))));
    expect(first).toEqual(['lookup-cut-1', 'lookup-cut-2']); // two failures: the rest are not asked this run
    expect(second).toEqual(['lookup-cut-3', 'lookup-cut-4']); // the ones not asked come next, not 10 minutes later
    expect(third).toEqual(['lookup-cut-5']);
    expect(fourth).toEqual([]); // each asked one waits its 10 minutes
  });
});
