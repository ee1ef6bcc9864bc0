/** Keyless prediction-market research reads (contract §4.3; supplement 2.15–2.21). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { loadCoins, type Coin } from '../../../marketdata/coins.js';
import { rankStories, type NewsSource } from '../../../news/types.js';
import { agentsTradingMarket } from '../../../pm/api.js';
import { quantile, seriesStats, type ResolvedSample } from '../../../pm/calibration.js';
import { consensusMethodology } from '../../../pm/consensus.js';
import { crossPlatformOf, crossSourceMatches, keyOf, pmReadModel, type PmSnapshot } from '../../../pm/read-model.js';
import { leaderIndex } from '../../../pm/spark.js';
import type { OutcomeQuote } from '../../../pm/types.js';
import { eventIn } from '../../../pm/research/events.js';
import { eventObject, iso, resolutionOutcomeOf, whaleItem, whaleTapeSummary, type Money } from '../../../pm/views.js';
import { VENUES, isMoneyVenue, sourceRef, venueById } from '../../../pm/venues.js';
import { plausiblyTradeable } from '../../../services/pm-trading-discover.js';
import { capturePoints, dailyVolumes, lastCapturesBeforeClose, recentWhales, type PmMarketRow } from '../../../storage/pm-repo.js';
import type { AppContext } from '../../context.js';
import { invalidRequest, notFound } from '../../errors.js';
import { StringEnum } from '../../schemas.js';
import { FiatQuery, ResponseCache, TAG, cachedResponder, fiatOf, ok, venuePath, venueQuery } from './common.js';
import {
  CalibrationResponse,
  ConsensusMethodologyResponse,
  EventDetailResponse,
  EventsResponse,
  OverviewResponse,
  PriceHistoryResponse,
  ResolvedResponse,
  ResolvedSummaryResponse,
  WhalesResponse,
} from '../../responses/pm-data.js';

const SORTS = ['best', 'volume24h_desc', 'priceChange24h_desc', 'priceChange24h_asc', 'endDate_desc', 'trending'] as const;
/** The finalPrice series starts here (contract: "per year back to 2016"). */
const FIRST_FINAL_PRICE_YEAR = 2016;
const INTERVALS: Record<string, number | null> = { '1h': 3_600_000, '6h': 6 * 3_600_000, '1d': 86_400_000, '1w': 7 * 86_400_000, '1m': 30 * 86_400_000, max: null };
const INTERVAL_ALIASES: Record<string, string> = { '24h': '1d', '7d': '1w', '30d': '1m', all: 'max' };
const MAX_PRICE_POINTS = 500;
const LIST_TTL_MS = 5_000;
const SLOW_TTL_MS = 60_000;
const MIN_SAMPLE = 20;

let coinsCache: Map<string, Coin> | null = null;
const RELATED_NEWS_MAX = 5;
const RELATED_NEWS_HOURS = 48;

/**
 * Stories about the event's topic coins (the news wire is about coins: an event with none has
 * none), the most important of the last 48 h first, in the supplement's shape (2.16).
 */
async function relatedNews(news: NewsSource | null, coins: Coin[], nowMs: number) {
  if (!news || coins.length === 0) return [];
  const stories = await news.stories(coins, nowMs - RELATED_NEWS_HOURS * 3_600_000, nowMs);
  return rankStories(stories, 0, RELATED_NEWS_MAX).map((s) => ({
    title: s.title,
    source: s.source,
    url: s.url,
    publishedAt: new Date(s.publishedAtMs).toISOString(),
    sentiment: s.sentiment,
    importance: s.importance,
  }));
}

function coinsById(): Map<string, Coin> {
  if (!coinsCache) coinsCache = new Map(loadCoins().map((c) => [c.coinId, c]));
  return coinsCache;
}

const leaderP = (r: PmMarketRow) => {
  const o = r.outcomes as OutcomeQuote[];
  return o[leaderIndex(r, o.map((x) => x.probability))]?.probability ?? 0;
};

function sortRows(rows: PmMarketRow[], sort: (typeof SORTS)[number], snap: PmSnapshot): PmMarketRow[] {
  const num = (v: number | null | undefined) => (v === null || v === undefined ? null : v);
  const nullsLast = (a: number | null, b: number | null, dir: 1 | -1) => (a === null && b === null ? 0 : a === null ? 1 : b === null ? -1 : dir * (a - b));
  const tie = (a: PmMarketRow, b: PmMarketRow) => b.volume24h - a.volume24h || keyOf(a).localeCompare(keyOf(b));
  const quality = (r: PmMarketRow) => ((snap.events.get(keyOf(r))!.decisionSupport as { qualityScore: number } | null)?.qualityScore ?? 0);
  const cmp: Record<(typeof SORTS)[number], (a: PmMarketRow, b: PmMarketRow) => number> = {
    best: (a, b) => Number(b.status === 'open') - Number(a.status === 'open') || quality(b) - quality(a) || tie(a, b),
    volume24h_desc: (a, b) => tie(a, b),
    priceChange24h_desc: (a, b) => nullsLast(num(a.priceChange24h), num(b.priceChange24h), -1) || tie(a, b),
    priceChange24h_asc: (a, b) => nullsLast(num(a.priceChange24h), num(b.priceChange24h), 1) || tie(a, b),
    endDate_desc: (a, b) => nullsLast(a.endAt?.getTime() ?? null, b.endAt?.getTime() ?? null, -1) || tie(a, b),
    trending: (a, b) =>
      Math.abs(b.priceChange24h ?? 0) * Math.log1p(b.volume24h) - Math.abs(a.priceChange24h ?? 0) * Math.log1p(a.volume24h) || tie(a, b),
  };
  return [...rows].sort(cmp[sort]);
}

function matchesQuery(r: PmMarketRow, words: string[]): boolean {
  const o = r.outcomes as OutcomeQuote[];
  const coins = coinsById();
  const hay = [r.title, r.category, ...(r.topics as string[]), ...o.map((x) => x.name), ...(r.coinIds as string[]).flatMap((id) => [coins.get(id)?.symbol ?? '', coins.get(id)?.name ?? '', coins.get(id)?.slug ?? ''])]
    .join(' ')
    .toLowerCase();
  // 1–2-character words match whole words only (reference B10): "b" matched most titles, "x" every "XRP".
  let wholeWords: Set<string> | null = null;
  return words.every((w) => (w.length > 2 ? hay.includes(w) : (wholeWords ??= new Set(hay.split(/[^\p{L}\p{N}]+/u))).has(w)));
}

function resolutionOf(r: PmMarketRow): Record<string, unknown> {
  const rules = r.rules ? (r.rules.length > 700 ? `${r.rules.slice(0, 699)}…` : r.rules) : null;
  const state = r.resolutionState === 'voided' ? 'voided' : r.resolutionState ? 'resolved' : r.status === 'open' ? 'open' : 'awaiting';
  return {
    published: rules !== null,
    rules,
    rulesTruncated: Boolean(r.rules && r.rules.length > 700),
    settlementSource: r.settlementSource,
    settlementSources: r.settlementSource ? [{ name: r.settlementSource, url: null }] : null,
    state,
    resolvedAt: r.resolvedAtVerified ? iso(r.resolvedAt) : null,
    resolvedAtVerified: r.resolvedAtVerified,
    closedAt: iso(r.closedAt),
    resolutionOutcome: resolutionOutcomeOf(r),
  };
}

export function pmDataRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const cache = new ResponseCache();
  const model = () => pmReadModel(ctx.database, ctx.clock);
  /** Serves a cached body for `key`, else builds it (and remembers it for `ttlMs`). */
  const cached = cachedResponder(cache, () => ctx.clock.now());

  return async (app) => {
    const config = { publicRate: true, conditional: true };

    app.get(
      '/api/prediction-markets/overview',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Market totals, highlights, categories and venues',
          querystring: Type.Object({
            fiat: FiatQuery,
            status: Type.Optional(StringEnum(['open'] as const, { description: 'highlights are open events (the only value; default open)' })),
            source: Type.Optional(Type.String({ description: 'venue id: totals, highlights and categories of that venue only' })),
          }),
          response: ok(OverviewResponse),
        },
      },
      async (request, reply) => {
        const { code, fx } = fiatOf(request.query.fiat);
        const source = venueQuery(request.query.source, 'query.source');
        return cached(reply, `overview:${code}:${source ?? ''}`, LIST_TTL_MS, async () => {
          const snap = await model().snapshot();
          const now = ctx.clock.now();
          const all = source ? snap.rows.filter((r) => r.source === source) : snap.rows;
          const open = all.filter((r) => r.status === 'open');
          const money = all.filter((r) => isMoneyVenue(r.source));
          const sum = (rows: PmMarketRow[], f: (r: PmMarketRow) => number) => Math.round(rows.reduce((a, r) => a + f(r), 0) * fx.rate * 100) / 100;
          const withChange = open.filter((r) => r.priceChange24h !== null);
          const ev = (r: PmMarketRow) => eventIn(snap, r, now, fx);
          const categories = [...new Set(all.map((r) => r.category))].sort();
          return {
            body: {
              stats: {
                totalMarkets: all.length,
                totalOpenMarkets: open.length,
                totalClosedMarkets: all.length - open.length,
                totalVolume: sum(money, (r) => r.volume),
                volume24h: sum(money.filter((r) => r.status === 'open'), (r) => r.volume24h),
                totalLiquidity: sum(money.filter((r) => r.status === 'open'), (r) => r.liquidity),
              },
              highlights: {
                gainers: [...withChange].sort((a, b) => b.priceChange24h! - a.priceChange24h! || keyOf(a).localeCompare(keyOf(b))).filter((r) => r.priceChange24h! > 0).slice(0, 5).map(ev),
                losers: [...withChange].sort((a, b) => a.priceChange24h! - b.priceChange24h! || keyOf(a).localeCompare(keyOf(b))).filter((r) => r.priceChange24h! < 0).slice(0, 5).map(ev),
                expiring: open.filter((r) => r.endAt && r.endAt.getTime() > now).sort((a, b) => a.endAt!.getTime() - b.endAt!.getTime()).slice(0, 5).map(ev),
              },
              categories: categories.map((c) => ({ slug: c, name: c[0]!.toUpperCase() + c.slice(1), count: open.filter((r) => r.category === c).length })),
              bySource: VENUES.filter((v) => !source || v.id === source).map((v) => {
                const rows = all.filter((r) => r.source === v.id);
                const o = rows.filter((r) => r.status === 'open');
                return {
                  source: { id: v.id, name: v.name },
                  totalMarkets: rows.length,
                  openMarkets: o.length,
                  volume24h: sum(o, (r) => r.volume24h),
                  totalVolume: sum(rows, (r) => r.volume),
                  liquidity: sum(o, (r) => r.liquidity),
                  lastIngestAt: iso(snap.health.get(v.id)?.lastSuccessAt),
                };
              }),
              byCategory: categories.map((c) => {
                const rows = all.filter((r) => r.category === c);
                const o = rows.filter((r) => r.status === 'open');
                return { category: c, totalMarkets: rows.length, openMarkets: o.length, volume24h: sum(o.filter((r) => isMoneyVenue(r.source)), (r) => r.volume24h) };
              }),
              updatedAt: new Date(Math.max(0, ...all.map((r) => r.lastCaptureAt?.getTime() ?? 0))).toISOString(),
              fiat: code,
            },
            sources: source ? [source] : VENUES.map((v) => v.id),
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/events',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Event list (filter, search, sort, paginate)',
          querystring: Type.Object({
            status: Type.Optional(StringEnum(['open', 'closed'] as const)),
            sort: Type.Optional(StringEnum(SORTS, { default: 'best' })),
            source: Type.Optional(Type.String({ description: 'venue id' })),
            q: Type.Optional(Type.String({ description: 'search words, cut to 80 characters and 6 words (longer input is cut, not refused); empty → 400' })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
            fiat: FiatQuery,
            lead: Type.Optional(StringEnum(['representative'] as const, { description: 'reference parameter; open rows always carry representativeOutcome here' })),
            tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "a category slug (the overview's categories[].slug, any case): only events of that category" })),
            tradeable: Type.Optional(
              Type.Boolean({ description: 'true: only markets a paper position could be opened on now (a trading venue, binary, open, not settled; quality gates aside — GET /api/agent/pm/discover says which pass them)' }),
            ),
          }),
          response: ok(EventsResponse),
        },
      },
      async (request, reply) => {
        const query = request.query;
        const source = venueQuery(query.source, 'query.source');
        const { code, fx } = fiatOf(query.fiat);
        let words: string[] | null = null;
        if (query.q !== undefined) {
          const q = query.q.normalize('NFKC').trim().toLowerCase();
          if (q === '') throw invalidRequest('query.q', 'q must not be empty');
          words = [...q].slice(0, 80).join('').split(/\s+/).filter(Boolean).slice(0, 6);
        }
        const sort = query.sort ?? 'best';
        const tag = query.tag?.trim().toLowerCase();
        const key = `events:${query.status ?? ''}:${sort}:${source ?? ''}:${(words ?? []).join(' ')}:${tag ?? ''}:${query.tradeable === true}:${query.limit}:${query.offset}:${code}`;
        return cached(reply, key, LIST_TTL_MS, async () => {
          const snap = await model().snapshot();
          const now = ctx.clock.now();
          let rows = snap.rows;
          if (query.status) rows = rows.filter((r) => r.status === query.status);
          if (source) rows = rows.filter((r) => r.source === source);
          if (words) rows = rows.filter((r) => matchesQuery(r, words!));
          if (tag) rows = rows.filter((r) => r.category === tag);
          if (query.tradeable) rows = rows.filter((r) => plausiblyTradeable(r, now));
          const sorted = sortRows(rows, sort, snap);
          const page = sorted.slice(query.offset, query.offset + query.limit);
          return {
            body: {
              data: page.map((r) => eventIn(snap, r, now, fx)),
              pagination: { limit: query.limit, offset: query.offset, hasMore: query.offset + page.length < sorted.length, total: sorted.length },
              meta: {
                sources: VENUES.map((v) => {
                  const h = snap.health.get(v.id);
                  return { ...sourceRef(v.id), lastIngestAt: iso(h?.lastSuccessAt), mode: h?.mode ?? null };
                }),
                sort,
                q: words ? words.join(' ') : null,
                fiat: code,
                attribution: 'Venue data belongs to the named venues; canonical ids, matching and consensus are Paper Arena data. Attribute and link back.',
              },
            },
            sources: page.map((r) => r.source),
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/events/:source/:slug',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Event detail: event, cross-venue matches, resolution, consensus, volume history, whales',
          params: Type.Object({ source: Type.String(), slug: Type.String({ maxLength: 300 }) }),
          querystring: Type.Object({ fiat: FiatQuery }),
          response: ok(EventDetailResponse),
        },
      },
      async (request, reply) => {
        const source = venuePath(request.params.source);
        const { code, fx } = fiatOf(request.query.fiat);
        const slug = request.params.slug;
        const snap = await model().snapshot();
        const row = snap.byKey.get(`${source}/${slug}`);
        if (!row) throw notFound('event_not_found', `no event ${source}/${slug}`);
        return cached(reply, `detail:${source}/${slug}:${code}`, LIST_TTL_MS, async () => {
          const now = ctx.clock.now();
          const members = row.canonicalKey ? snap.clusters.get(row.canonicalKey)! : [];
          const topics = new Set(row.topics as string[]);
          const related = snap.rows
            .filter((r) => keyOf(r) !== keyOf(row) && r.status === 'open' && (r.canonicalKey === null || r.canonicalKey !== row.canonicalKey))
            .map((r) => ({ r, score: (r.source === row.source ? 1 : 0) + (r.category === row.category ? 2 : 0) + (r.topics as string[]).filter((t) => topics.has(t)).length }))
            .filter((x) => x.score >= 3)
            .sort((a, b) => b.score - a.score || b.r.volume24h - a.r.volume24h || keyOf(a.r).localeCompare(keyOf(b.r)))
            .slice(0, 6)
            .map((x) => eventIn(snap, x.r, now, fx));
          const volumes = await dailyVolumes(ctx.database.db, row.source, row.slug);
          const whales = await recentWhales(ctx.database.db, 10, { source: row.source, slug: row.slug });
          const coins = coinsById();
          const topicCoins = (row.coinIds as string[]).map((id) => coins.get(id)).filter((c): c is Coin => Boolean(c));
          const event: Record<string, unknown> = {
            ...eventObject(row, now, fx, snap.refs.get(keyOf(row)) ?? null, crossPlatformOf(row, members), true),
          };
          if (row.status === 'open') event.representativeOutcomeBasis = 'informative_leader';
          return {
            body: {
              event,
              relatedEvents: related,
              crossSourceMatches: crossSourceMatches(row, members),
              resolution: resolutionOf(row),
              referenceProbability: row.status === 'open' ? (snap.refs.get(keyOf(row)) ?? null) : null,
              volumeHistory: volumes.map((v) => ({ date: v.date, volume: Math.round(v.volume * fx.rate * 100) / 100, volume24h: Math.round(v.volume24h * fx.rate * 100) / 100 })),
              relatedNews: await relatedNews(ctx.news(), topicCoins, now),
              topicRelatedCoins: topicCoins.map((c) => ({ coinId: c.coinId, slug: c.slug, symbol: c.symbol, name: c.name })),
              agentsTradingMarket: await agentsTradingMarket(ctx.database, row.source, row.slug),
              // usdValue is US dollars by name, as on /whales and the stream: fiat converts volumes only
              recentWhaleTrades: whales.map((w) => whaleItem(w, now)),
              translations: {},
              canonicalEventId: row.canonicalKey,
              attribution: event.attribution,
              fiat: code,
            },
            sources: [row.source, ...members.map((m) => m.source)],
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/whales',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'The 50 most recent verified large trades (money venues only)',
          querystring: Type.Object({ limit: Type.Optional(Type.String({ description: '1..50; above 50 clamps to 50; missing or malformed → the full tape (never 400)' })) }),
          response: ok(WhalesResponse),
        },
      },
      async (request, reply) => {
        const raw = request.query.limit;
        const n = raw !== undefined && /^\d{1,9}$/.test(raw) && Number(raw) >= 1 ? Math.min(50, Number(raw)) : 50;
        return cached(reply, `whales:${n}`, LIST_TTL_MS, async () => {
          const now = ctx.clock.now();
          const moneyVenues = VENUES.filter((v) => isMoneyVenue(v.id));
          const rows = await recentWhales(ctx.database.db, 50, { sources: moneyVenues.map((v) => v.id) });
          const tape = rows.map((w) => whaleItem(w, now));
          // `limit` only narrows the one tape; coverage and stats describe the whole tape.
          const summary = whaleTapeSummary(tape, moneyVenues, now);
          return { body: { trades: tape.slice(0, n), ...summary }, sources: rows.slice(0, n).map((w) => w.source) };
        });
      },
    );

    app.get(
      '/api/prediction-markets/event/:source/:slug/price-history',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Leading-outcome price history (native venue history for polymarket and kalshi; [] elsewhere)',
          params: Type.Object({ source: Type.String(), slug: Type.String({ maxLength: 300 }) }),
          querystring: Type.Object({ interval: Type.Optional(Type.String({ description: '1h, 6h, 1d, 1w (default), 1m, max; aliases 24h, 7d, 30d, all; anything else is served as 1w' })) }),
          response: ok(PriceHistoryResponse),
        },
      },
      async (request, reply) => {
        const source = venuePath(request.params.source);
        const slug = request.params.slug;
        const raw = request.query.interval ?? '1w';
        // own keys only: `toString` or `constructor` are in every object (a 500 before)
        const interval = Object.hasOwn(INTERVALS, raw) ? raw : Object.hasOwn(INTERVAL_ALIASES, raw) ? INTERVAL_ALIASES[raw]! : '1w';
        const snap = await model().snapshot();
        const row = snap.byKey.get(`${source}/${slug}`);
        if (!row) throw notFound('event_not_found', `no event ${source}/${slug}`);
        return cached(reply, `history:${source}/${slug}:${interval}`, LIST_TTL_MS, async () => {
          const now = ctx.clock.now();
          const o = row.outcomes as OutcomeQuote[];
          const li = leaderIndex(row, o.map((x) => x.probability));
          let points: { t: number; p: number }[] = [];
          if (venueById(source)!.nativeHistory) {
            const span = INTERVALS[interval];
            const all = await capturePoints(ctx.database.db, source, slug, span === null || span === undefined ? 0 : now - span, now, li);
            const step = Math.ceil(all.length / MAX_PRICE_POINTS);
            points = step > 1 ? all.filter((_, i) => i % step === 0 || i === all.length - 1) : all;
          }
          return {
            body: { source, slug, interval, outcome: o[li] ? { name: o[li]!.name, externalMarketId: o[li]!.externalMarketId } : null, points, attribution: `Data from ${venueById(source)!.name}` },
            sources: [source],
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/calibration',
      { config, schema: { tags: [TAG], summary: 'Three labeled, non-comparable calibration series: scored, finalPrice, ownCapture', response: ok(CalibrationResponse) } },
      async (_request, reply) =>
        cached(reply, 'calibration', SLOW_TTL_MS, async () => {
          const snap = await model().snapshot();
          const resolved = snap.rows.filter((r) => r.resolutionState === 'resolved' && r.winnerExternalId);
          const sample = (r: PmMarketRow, probs: unknown): ResolvedSample => ({
            outcomeIds: (r.outcomes as OutcomeQuote[]).map((o) => o.externalMarketId),
            probabilities: (probs as number[] | null) ?? null,
            winner: r.winnerExternalId!,
          });
          const scored: unknown[] = [];
          const pending: unknown[] = [];
          for (const v of VENUES) {
            const s = seriesStats(resolved.filter((r) => r.source === v.id).map((r) => sample(r, r.leadProbabilities)));
            if (s.sampleSize >= MIN_SAMPLE) scored.push({ source: v.id, name: v.name, ...s });
            else pending.push({ source: v.id, name: v.name, reason: 'below_min_sample', sampleSize: s.sampleSize });
          }
          const finalSeries = VENUES.map((v) => {
            // a year only where the venue verified when the market resolved (contract: "per year back to 2016 where verified")
            const mine = resolved.filter((r) => r.source === v.id && r.resolvedAtVerified && r.resolvedAt && r.resolvedAt.getUTCFullYear() >= FIRST_FINAL_PRICE_YEAR);
            const years = [...new Set(mine.map((r) => r.resolvedAt!.getUTCFullYear()))].sort();
            return {
              source: v.id,
              name: v.name,
              years: years.map((year) => {
                const s = seriesStats(mine.filter((r) => r.resolvedAt!.getUTCFullYear() === year).map((r) => sample(r, r.finalProbabilities)));
                return { year, sampleSize: s.sampleSize, calibrationError: s.calibrationError, reliability: s.reliability };
              }),
            };
          }).filter((s) => s.years.length > 0);
          const own = await lastCapturesBeforeClose(ctx.database.db);
          const ownSeries: unknown[] = [];
          const leadTimes: unknown[] = [];
          for (const v of VENUES) {
            const mine = own.filter((c) => c.source === v.id && c.winner);
            if (mine.length === 0) continue;
            const s = seriesStats(mine.map((c) => ({ outcomeIds: (c.outcomes as OutcomeQuote[]).map((o) => o.externalMarketId), probabilities: c.probabilities, winner: c.winner! })));
            const leads = mine.map((c) => (c.closedAt.getTime() - c.capturedAt.getTime()) / 60_000).sort((a, b) => a - b);
            ownSeries.push({ source: v.id, name: v.name, sampleSize: s.sampleSize, calibrationError: s.calibrationError, reliability: s.reliability });
            leadTimes.push({ source: v.id, name: v.name, medianLeadMinutes: Math.round(quantile(leads, 0.5)! * 10) / 10, p90LeadMinutes: Math.round(quantile(leads, 0.9)! * 10) / 10 });
          }
          return {
            body: {
              leadHours: 24,
              minSample: MIN_SAMPLE,
              methodology:
                'scored: venue probabilities 24 h before resolution, every outcome of a complete book is one (probability, won) pair; expected calibration error over 10 equal bins, Σ (pairs_b/N)·|predictedMean_b − realizedRate_b|. Venues below minSample are listed in pending.',
              scored,
              pending,
              finalPrice: {
                methodology: 'Venue-reported final pre-resolution prices per resolution year (back to 2016 where the venue has data), over markets whose resolution time the venue verified; same binning. Final prices sit next to the outcome and are not comparable with scored.',
                basis: 'venue_final_price',
                series: finalSeries,
              },
              ownCapture: {
                methodology: "Paper Arena's own last capture before each market closed (capture history began 2026-01-01); lead times differ per venue and are published; not comparable with scored or finalPrice.",
                basis: 'own_last_capture',
                leadTimes,
                series: ownSeries,
              },
              note: 'The three series use different bases and are not cross-comparable.',
            },
            sources: VENUES.map((v) => v.id),
          };
        }),
    );

    app.get(
      '/api/prediction-markets/resolved',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Resolved events with winning outcome and resolution provenance, newest settlement first',
          querystring: Type.Object({
            source: Type.Optional(Type.String()),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 24 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
            fiat: FiatQuery,
            minVolume: Type.Optional(Type.Number({ minimum: 0, description: 'lifetime-volume floor in `fiat`; 0 = none' })),
            year: Type.Optional(Type.Integer({ minimum: 2010, description: 'resolution year (UTC), 2010..next year' })),
            month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'resolution month 1..12; needs year' })),
          }),
          response: ok(ResolvedResponse),
        },
      },
      async (request, reply) => {
        const source = venueQuery(request.query.source, 'query.source');
        const { code, fx } = fiatOf(request.query.fiat);
        const { limit, offset, year, month } = request.query;
        const minVolume = request.query.minVolume && request.query.minVolume > 0 ? request.query.minVolume : null;
        const maxYear = new Date(ctx.clock.now()).getUTCFullYear() + 1;
        if (year !== undefined && year > maxYear) throw invalidRequest('query.year', `year must be 2010..${maxYear}`);
        if (month !== undefined && year === undefined) throw invalidRequest('query.month', 'month needs year');
        const key = `resolved:${source ?? ''}:${limit}:${offset}:${code}:${minVolume ?? ''}:${year ?? ''}:${month ?? ''}`;
        return cached(reply, key, LIST_TTL_MS, async () => {
          const snap = await model().snapshot();
          const now = ctx.clock.now();
          const inSlice = (d: Date) => year === undefined || (d.getUTCFullYear() === year && (month === undefined || d.getUTCMonth() + 1 === month));
          const archive = snap.rows
            .filter((r) => r.resolutionState === 'resolved' && r.winnerExternalId && (!source || r.source === source) && inSlice(r.resolvedAt!))
            .sort((a, b) => b.resolvedAt!.getTime() - a.resolvedAt!.getTime() || keyOf(a).localeCompare(keyOf(b)));
          const rows = minVolume === null ? archive : archive.filter((r) => r.volume * fx.rate >= minVolume);
          const page = rows.slice(offset, offset + limit);
          return {
            body: {
              data: page.map((r) => {
                const res = resolutionOf(r);
                return { event: eventIn(snap, r, now, fx), resolvedAt: res.resolvedAt, resolvedAtVerified: r.resolvedAtVerified, closedAt: res.closedAt, resolutionOutcome: res.resolutionOutcome };
              }),
              pagination: { limit, offset, hasMore: offset + page.length < rows.length },
              totalResolved: archive.length,
              // Reference `meta`: the archive count is not volume-filtered, so it is null under a floor.
              meta: { totalResolved: minVolume === null ? archive.length : null, minVolume, period: year === undefined ? null : { year, month: month ?? null } },
              fiat: code,
            },
            sources: page.map((r) => r.source),
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/resolved/summary',
      {
        config,
        schema: {
          tags: [TAG],
          summary: "One venue's resolved-event totals by year",
          querystring: Type.Object({ source: Type.Optional(Type.String({ description: 'venue id (required)' })) }),
          response: ok(ResolvedSummaryResponse),
        },
      },
      async (request, reply) => {
        const source = venueQuery(request.query.source, 'query.source', true)!;
        return cached(reply, `summary:${source}`, SLOW_TTL_MS, async () => {
          const snap = await model().snapshot();
          const rows = snap.rows.filter((r) => r.source === source && r.resolutionState === 'resolved' && r.winnerExternalId && r.resolvedAt);
          const byYear = new Map<number, number>();
          for (const r of rows) byYear.set(r.resolvedAt!.getUTCFullYear(), (byYear.get(r.resolvedAt!.getUTCFullYear()) ?? 0) + 1);
          const years = [...byYear.keys()].sort();
          return {
            body: {
              source,
              totalResolved: rows.length,
              earliestYear: years[0] ?? null,
              providerTimeShare: rows.length ? Math.round((rows.filter((r) => r.resolvedAtVerified).length / rows.length) * 10_000) / 10_000 : 0,
              byYear: years.map((year) => ({ year, events: byYear.get(year)! })),
            },
            sources: [source],
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/consensus-methodology',
      { config, schema: { tags: [TAG], summary: 'Versioned description of the cross-venue consensus (referenceProbability)', response: ok(ConsensusMethodologyResponse) } },
      async (_request, reply) => cached(reply, 'methodology', SLOW_TTL_MS, async () => ({ body: consensusMethodology, sources: [] })),
    );
  };
}
