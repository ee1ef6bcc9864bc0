import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forcePmResolution } from '../../src/pm/api.js';
import { pmReadModel } from '../../src/pm/read-model.js';
import { VENUE_IDS, isMoneyVenue } from '../../src/pm/venues.js';
import { upsertPmMarkets } from '../../src/storage/pm-repo.js';
import { createPmApp, type PmTestApp } from '../support/pm-app.js';

let t: PmTestApp;
beforeAll(async () => {
  t = await createPmApp({ config: { publicRpm: 100_000 } });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const PM = '/api/prediction-markets';
const status = async (url: string) => (await t.get(url)).status;

async function allOpenEvents(source: string): Promise<any[]> {
  const r = await t.get(`${PM}/events?status=open&source=${source}&limit=100`);
  return r.body.data;
}

describe('public headers', () => {
  it('every new public read carries the cache lifetime, attribution and the per-IP budget', async () => {
    for (const path of ['matches/public', 'surprises', 'expiring', 'volume-history', 'whales/wallets', 'sources', 'sources/health']) {
      const r = await t.get(`${PM}/${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers['cache-control'], path).toMatch(/public, max-age=\d+/);
      expect(r.headers['x-data-attribution'], path).toBeDefined();
      expect(r.headers['ratelimit-limit'], path).toBe('100000');
    }
  });
});

describe('GET /matches/public', () => {
  it('lists clusters of two or more venues with one oriented comparison per pair, by confidence', async () => {
    const r = await t.get(`${PM}/matches/public?limit=25`);
    expect(r.body.total).toBeGreaterThan(0);
    expect(r.body.pagination).toMatchObject({ limit: 25, offset: 0 });
    let last = Infinity;
    for (const c of r.body.data) {
      expect(c.events.length).toBeGreaterThanOrEqual(2);
      expect(c.comparisons.length).toBe(c.events.length - 1);
      expect(c.maxConfidence).toBeLessThanOrEqual(last);
      last = c.maxConfidence;
      for (const p of c.comparisons) {
        expect(p.eventAId).toBe(c.primaryEventId);
        for (const o of p.comparison) expect(o.deltaPoints).toBeCloseTo(Math.abs(o.eventAProbability - o.eventBProbability), 0);
      }
    }
  });

  it('reports no gap (null, sorted last), not a zero gap, for a cluster whose pair cannot be compared', async () => {
    // Every page of a sort (25 at most per page).
    const all = async (query: string) => {
      const out: any[] = [];
      for (let offset = 0; ; offset += 25) {
        const page = (await t.get(`${PM}/matches/public?${query}&limit=25&offset=${offset}`)).body;
        out.push(...page.data);
        if (!page.hasMore) return out;
      }
    };
    const pair = (await all('sort=confidence_desc')).find((c) => c.comparisons.every((p: any) => p.divergence !== null))!;
    expect(pair).toBeDefined();
    // Every other venue's orientation turns unknown: no pair can be compared any more.
    for (const e of pair.events.slice(1)) {
      await t.ctx.database.db.execute(sql`update pm_markets set orientation = 'unknown' where source = ${e.source.id} and slug = ${e.slug}`);
    }
    pmReadModel(t.ctx.database, t.ctx.clock).invalidate();
    t.clock.advance(6_000); // past the 5 s response cache
    const byGap = await all('sort=divergence_desc');
    const unknown = byGap.find((c) => c.clusterId === pair.clusterId)!;
    expect(unknown.comparisons[0].divergence).toBeNull();
    expect(unknown).toMatchObject({ maxOverallGap: null, maxOutcomeGap: null });
    expect(byGap.slice(byGap.indexOf(unknown)).every((c) => c.maxOverallGap === null)).toBe(true);
  });

  it('filters by divergence, real-money venues and status, and sorts by divergence', async () => {
    const div = (await t.get(`${PM}/matches/public?sort=divergence_desc&minDivergence=1&limit=25`)).body;
    for (let i = 1; i < div.data.length; i++) expect(div.data[i - 1].maxOverallGap).toBeGreaterThanOrEqual(div.data[i].maxOverallGap);
    for (const c of div.data) for (const p of c.comparisons) expect(p.divergence).toBeGreaterThanOrEqual(1);
    const money = (await t.get(`${PM}/matches/public?sourceKind=market&status=open&limit=25`)).body;
    for (const c of money.data) for (const e of c.events) {
      expect(isMoneyVenue(e.source.id)).toBe(true);
      expect(e.status).toBe('open');
    }
    expect(await status(`${PM}/matches/public?limit=26`)).toBe(400);
    expect(await status(`${PM}/matches/public?sort=best`)).toBe(400);
  });
});

describe('GET /surprises and /expiring', () => {
  it('surprises: binary, settled on the venue marker, winner under 50 a day before, least expected first', async () => {
    // The simulator converges on the real outcome well before the last day, so upsets are stored here.
    const snap = await pmReadModel(t.ctx.database, t.clock).snapshot();
    const resolved = snap.rows.filter((r) => r.kind === 'binary' && r.resolutionState === 'resolved' && r.leadProbabilities).slice(0, 3);
    await upsertPmMarkets(
      t.ctx.database.db,
      resolved.map((r, i) => {
        const o = r.outcomes as { externalMarketId: string }[];
        const w = o.findIndex((x) => x.externalMarketId === r.winnerExternalId);
        const lead = [0, 0];
        lead[w] = 10 + 15 * i;
        lead[1 - w] = 100 - lead[w]!;
        return { ...r, slug: `${r.slug}-upset`, leadProbabilities: lead };
      }),
    );
    pmReadModel(t.ctx.database, t.clock).invalidate();
    const r = await t.get(`${PM}/surprises?limit=100`);
    expect(r.body.window).toBe('all');
    expect(r.body.data.map((s: any) => s.surprise.t24hProbability)).toEqual(expect.arrayContaining([10, 25, 40]));
    let last = -1;
    for (const s of r.body.data) {
      expect(s.event.outcomes).toHaveLength(2);
      expect(s.resolutionOutcome.basis).toBe('source');
      expect(s.surprise.t24hProbability).toBeLessThan(50);
      expect(s.surprise.t24hProbability).toBeGreaterThanOrEqual(last);
      last = s.surprise.t24hProbability;
    }
    expect((await t.get(`${PM}/surprises?window=fortnight`)).body.window).toBe('all');
    const week = (await t.get(`${PM}/surprises?window=7d&limit=100`)).body;
    expect(week.window).toBe('7d');
    expect(week.data.length).toBeLessThanOrEqual(r.body.data.length);
    expect(await status(`${PM}/surprises?limit=101`)).toBe(400);
    expect(await status(`${PM}/surprises?source=nowhere`)).toBe(400);
  });

  it('expiring: open events ending inside the window, soonest first, with expiresInMs', async () => {
    const now = t.clock.now();
    const r = await t.get(`${PM}/expiring?days=30&limit=100`);
    expect(r.body.meta.window).toEqual({ from: new Date(now).toISOString(), to: new Date(now + 30 * 86_400_000).toISOString() });
    expect(r.body.meta.totalExpiring).toBeGreaterThan(0);
    let last = 0;
    for (const e of r.body.data) {
      expect(e.status).toBe('open');
      expect(e.expiresInMs).toBe(Date.parse(e.endDate) - now);
      expect(e.expiresInMs).toBeGreaterThanOrEqual(last);
      last = e.expiresInMs;
    }
    expect(await status(`${PM}/expiring?days=99`)).toBe(400);
  });
});

describe('GET /volume-history', () => {
  it('is a daily series over real-money venues where a gap is null', async () => {
    const r = await t.get(`${PM}/volume-history`);
    const days = r.body.days;
    expect(days.length).toBeGreaterThan(1);
    for (let i = 1; i < days.length; i++) expect(days[i].day > days[i - 1].day).toBe(true);
    expect(days.some((d: any) => d.volume24h > 0)).toBe(true);
    for (const d of days) {
      expect(d.bySource.every((s: any) => isMoneyVenue(s.source))).toBe(true);
      const known = d.bySource.filter((s: any) => s.volume24h !== null);
      if (known.length === 0) expect(d.volume24h).toBeNull();
      else expect(d.volume24h).toBeCloseTo(known.reduce((a: number, s: any) => a + s.volume24h, 0), 1);
    }
  });
});

describe('order book and trades', () => {
  it('polymarket: a modeled book around the stored best bid/ask in 0..1, best first', async () => {
    const [event] = await allOpenEvents('polymarket');
    const r = await t.get(`${PM}/event/polymarket/${event.slug}/orderbook`);
    expect(r.status).toBe(200);
    const b = r.body.orderBook;
    expect(r.body.outcome.externalMarketId).toBe(event.outcomes[0].externalMarketId);
    expect(b.bid).toBeCloseTo(event.outcomes[0].probability / 100 - (event.outcomes[0].probability / 100 - b.bid), 6);
    expect(b.bid).toBeLessThan(b.ask);
    expect(b.midpoint).toBeCloseTo((b.bid + b.ask) / 2, 4);
    for (let i = 1; i < b.bids.length; i++) expect(b.bids[i].price).toBeLessThan(b.bids[i - 1].price);
    for (let i = 1; i < b.asks.length; i++) expect(b.asks[i].price).toBeGreaterThan(b.asks[i - 1].price);
    expect(b.askEvidence.validated).toBe(true);
  });

  it('the best level of each side is the stated bid / ask: a client walking levels and one reading top of book see one price', async () => {
    let books = 0;
    for (const source of ['polymarket', 'kalshi']) {
      for (const event of await allOpenEvents(source)) {
        const b = (await t.get(`${PM}/event/${source}/${event.slug}/orderbook`)).body.orderBook;
        if (!b) continue;
        books += 1;
        // bid 0.625 came with bids[0] 0.63; an ask of 1 with no ask level at all
        if (b.bid === null) expect(b.bids).toEqual([]);
        else if (b.bid > 0) expect(b.bids[0].price, `${source}/${event.slug}`).toBe(b.bid);
        if (b.ask === null) expect(b.asks).toEqual([]);
        else expect(b.asks[0].price, `${source}/${event.slug}`).toBe(b.ask);
        for (const level of [...b.bids, ...b.asks]) expect(level.price > 0 && level.price <= 1).toBe(true);
      }
    }
    expect(books).toBeGreaterThan(10);
  });

  it('other venues answer 200 with orderBook null and trades []; unknown event 404; unknown venue 400', async () => {
    const [event] = await allOpenEvents('manifold');
    expect((await t.get(`${PM}/event/manifold/${event.slug}/orderbook`)).body.orderBook).toBeNull();
    expect((await t.get(`${PM}/event/manifold/${event.slug}/trades`)).body.trades).toEqual([]);
    expect(await status(`${PM}/event/polymarket/no-such-event/orderbook`)).toBe(404);
    expect(await status(`${PM}/event/nowhere/x/trades`)).toBe(400);
  });

  it('trades: at most 20, newest first, priced in 0..1 with usdValue = size × price', async () => {
    const events = await allOpenEvents('kalshi');
    let seen = 0;
    for (const e of events.slice(0, 5)) {
      const r = await t.get(`${PM}/event/kalshi/${e.slug}/trades`);
      expect(r.body.trades.length).toBeLessThanOrEqual(20);
      seen += r.body.trades.length;
      for (let i = 1; i < r.body.trades.length; i++) expect(r.body.trades[i].timestamp <= r.body.trades[i - 1].timestamp).toBe(true);
      for (const x of r.body.trades) {
        expect(x.price).toBeGreaterThan(0);
        expect(x.price).toBeLessThanOrEqual(1);
        expect(x.size * x.price).toBeCloseTo(x.usdValue, -1);
        expect(['yes', 'no']).toContain(x.side);
        expect(x.who).toBeNull();
      }
    }
    expect(seen).toBeGreaterThan(0);
  });
});

describe('whale wallets', () => {
  it('lists on-chain wallets by notional and profiles one of them', async () => {
    const r = await t.get(`${PM}/whales/wallets?window=30d`);
    expect(r.body.venues).toEqual(['polymarket', 'limitless', 'myriad']);
    expect(r.body.wallets.length).toBeGreaterThan(0);
    for (let i = 1; i < r.body.wallets.length; i++) expect(r.body.wallets[i - 1].totalUsd).toBeGreaterThanOrEqual(r.body.wallets[i].totalUsd);
    const w = r.body.wallets[0];
    expect(w.address).toMatch(/^0x[0-9a-f]{40}$/i);
    const venue = w.venues[0].source;
    const p = await t.get(`${PM}/whales/wallets/${venue}/${w.wallet}`);
    expect(p.status).toBe(200);
    expect(p.body.summary30d.tradeCount).toBe(w.venues[0].tradeCount);
    expect(p.body.summary30d.buyUsd + p.body.summary30d.sellUsd).toBeCloseTo(p.body.summary30d.totalUsd, 1);
    expect(p.body.recentFills.length).toBeGreaterThan(0);
  });

  it('refuses unknown windows, venues without wallets and malformed addresses; unknown wallet is 404', async () => {
    expect(await status(`${PM}/whales/wallets?window=1d`)).toBe(400);
    expect(await status(`${PM}/whales/wallets?source=kalshi`)).toBe(400);
    expect(await status(`${PM}/whales/wallets/polymarket/0x123`)).toBe(400);
    expect(await status(`${PM}/whales/wallets/kalshi/0x${'a'.repeat(40)}`)).toBe(400);
    expect(await status(`${PM}/whales/wallets/polymarket/0x${'0'.repeat(40)}`)).toBe(404);
  });
});

describe('GET /events/{source}/{slug}/revisions', () => {
  it('records creation and resolution append-only, and asOf rebuilds the fields as published then', async () => {
    const [event] = await allOpenEvents('kalshi');
    const before = t.clock.now();
    const first = await t.get(`${PM}/events/kalshi/${event.slug}/revisions`);
    expect(first.status).toBe(200);
    expect(first.body.subjectKey).toBe(`kalshi:${event.id.split(':')[1]}`);
    expect(first.body.revisions.at(-1).reasonCode).toBe('created');
    expect(first.body.revisions.some((r: any) => r.reasonCode === 'resolution_set')).toBe(false);

    (t.clock as any).advance(60_000);
    expect(await forcePmResolution(t.ctx.database, t.clock, { source: 'kalshi', slug: event.slug, winnerExternalMarketId: event.outcomes[0].externalMarketId })).toBe(true);
    pmReadModel(t.ctx.database, t.clock).invalidate();
    (t.clock as any).advance(60_000);
    const after = await t.get(`${PM}/events/kalshi/${event.slug}/revisions`);
    // instants as everywhere else in the API (PostgreSQL's JSON wrote 2026-11-27T15:32:00+00:00)
    const created = after.body.revisions.find((r: any) => r.reasonCode === 'created');
    if (created.nextValue.endDate !== null) expect(created.nextValue.endDate).toBe(new Date(created.nextValue.endDate).toISOString());
    const set = after.body.revisions.find((r: any) => r.field === 'resolution.winner');
    expect(set).toMatchObject({ reasonCode: 'resolution_set', prevValue: null, nextValue: event.outcomes[0].externalMarketId });
    expect(after.body.revisions[0].id).toBeGreaterThan(first.body.revisions[0].id);

    const then = await t.get(`${PM}/events/kalshi/${event.slug}/revisions?asOf=${new Date(before).toISOString()}`);
    expect(then.body.reconstructed['resolution.winner']).toBeUndefined();
    expect(then.body.reconstructed.event.title).toBe(event.title);
    const now = await t.get(`${PM}/events/kalshi/${event.slug}/revisions?asOf=${new Date(t.clock.now()).toISOString()}`);
    expect(now.body.reconstructed['resolution.winner']).toBe(event.outcomes[0].externalMarketId);

    await expect(t.ctx.database.db.execute(sql`update pm_revisions set reason_code = 'x'`)).rejects.toThrow();
    await expect(t.ctx.database.db.execute(sql`delete from pm_revisions`)).rejects.toThrow();
    expect(await status(`${PM}/events/kalshi/${event.slug}/revisions?asOf=yesterday`)).toBe(400);
    expect(await status(`${PM}/events/kalshi/no-such-event/revisions`)).toBe(404);
  });
});

describe('sources and their health', () => {
  it('sources: the 12 venues, coverage beside live stats that never fall below it', async () => {
    const r = await t.get(`${PM}/sources`);
    expect(r.body.sources.map((s: any) => s.id)).toEqual([...VENUE_IDS]);
    for (const s of r.body.sources) {
      expect(s.coverage).not.toBeNull();
      expect(s.stats.totalEvents).toBeGreaterThanOrEqual(s.coverage.enumeratedTotal);
      expect(s.coverage.openCount + s.coverage.closedCount).toBe(s.coverage.enumeratedTotal);
      expect(s.coverage.catalogFirstSeenDay).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('sources/health: every venue fresh right after an ingest, summary counts agree', async () => {
    await t.ingest.run(t.clock.now());
    pmReadModel(t.ctx.database, t.clock).invalidate();
    const r = await t.get(`${PM}/sources/health`);
    expect(r.body.sources).toHaveLength(12);
    expect(r.body.summary.venues).toBe(12);
    expect(r.body.summary.healthy + r.body.summary.degraded).toBe(12);
    expect(r.body.degraded.map((d: any) => d.id)).toEqual(r.body.sources.filter((s: any) => s.degraded.length > 0).map((s: any) => s.id));
    for (const s of r.body.sources) {
      expect(s.lagSeconds).not.toBeNull();
      expect(s.freshness).toBe('fresh');
    }
  });
});

describe('outcome lifecycle of a settled event', () => {
  it('marks every outcome a result (won or lost), not only the winner; basis says whose winner it is', async () => {
    const closed = (await t.get(`${PM}/events?status=closed&limit=100`)).body.data as any[];
    const resolved = closed.filter((e) => e.resolvedOutcomeExternalMarketId && e.outcomes.length >= 2).slice(0, 5);
    expect(resolved.length).toBeGreaterThan(0);
    for (const row of resolved) {
      const { event } = (await t.get(`${PM}/events/${row.source.id}/${row.slug}`)).body;
      const lifecycles = event.outcomes.map((o: any) => o.lifecycle);
      expect(lifecycles.every((l: any) => l.state === 'resolved' && l.isResult === true), row.slug).toBe(true);
      expect(lifecycles.filter((l: any) => l.result === 'won')).toHaveLength(1);
      expect(lifecycles.filter((l: any) => l.result === 'lost')).toHaveLength(event.outcomes.length - 1);
      const basis = event.resolutionOutcomeBasis === 'final_probability' ? 'stored_winner' : 'provider';
      expect(lifecycles.every((l: any) => l.basis === basis)).toBe(true);
    }
    const open = (await allOpenEvents('polymarket'))[0];
    const detail = (await t.get(`${PM}/events/polymarket/${open.slug}`)).body.event;
    expect(detail.outcomes.every((o: any) => o.lifecycle.isResult === false && o.lifecycle.result === null)).toBe(true);
  });
});
