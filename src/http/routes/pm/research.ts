/**
 * The reference's extra keyless PM research reads (reference-shapes §2 A2–A12): public match
 * clusters, surprises, expiring, volume history, order book and trade tape, whale wallets,
 * revisions, venue coverage and ingest health. Same cache headers, attribution and per-IP
 * budget as the other public PM reads.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CLUSTER_SORTS, publicClusters } from '../../../pm/research/clusters.js';
import { sourceRows, sourcesHealth, volumeHistory } from '../../../pm/research/coverage.js';
import { pageOf } from '../../../pm/research/events.js';
import { MICROSTRUCTURE_VENUES, TAPE_LIMIT, microOutcome, orderBookOf, tapeOf } from '../../../pm/research/microstructure.js';
import { SURPRISE_WINDOWS, expiring, surpriseWindowOf, surprises } from '../../../pm/research/resolution-views.js';
import { WALLET_PATTERN, WALLET_VENUES, WALLET_WINDOWS, walletProfile, walletRows } from '../../../pm/research/wallets.js';
import { keyOf, pmReadModel } from '../../../pm/read-model.js';
import { VENUES, VENUE_IDS } from '../../../pm/venues.js';
import { recentWhales } from '../../../storage/pm-repo.js';
import {
  fieldsAsOf,
  marketRevisions,
  recentCaptures,
  venueCatalogFacts,
  venueDailyVolumes,
  walletFills,
  whaleWalletAggregates,
} from '../../../storage/pm-research-repo.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { StringEnum } from '../../schemas.js';
import { FiatQuery, ResponseCache, TAG, cachedResponder, fiatOf, ok, venueQuery } from './common.js';
import {
  ExpiringResponse,
  OrderBookResponse,
  PublicMatchesResponse,
  RevisionsResponse,
  SourcesHealthResponse,
  SourcesResponse,
  SurprisesResponse,
  TradesResponse,
  VolumeHistoryResponse,
  WhaleWalletResponse,
  WhaleWalletsResponse,
} from '../../responses/pm-research.js';

const LIST_TTL_MS = 5_000;
const SLOW_TTL_MS = 60_000;
const VOLUME_TTL_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
const REVISIONS_CAP = 200;
const VenueId = StringEnum(VENUE_IDS as unknown as readonly string[], { description: 'venue id' });
const EventParams = Type.Object({ source: VenueId, slug: Type.String({ minLength: 1, maxLength: 300 }) });

export function pmResearchRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const cached = cachedResponder(new ResponseCache(), () => ctx.clock.now());
  const model = () => pmReadModel(ctx.database, ctx.clock);
  const marketOr404 = async (source: string, slug: string) => {
    const snap = await model().snapshot();
    const row = snap.byKey.get(keyOf({ source, slug }));
    if (!row) throw notFound('event_not_found', `no event ${source}/${slug}`);
    return { snap, row };
  };

  return async (app) => {
    const config = { publicRate: true, conditional: true };

    app.get(
      '/api/prediction-markets/matches/public',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Cross-venue match clusters with one comparison per matched pair',
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 10 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
            sort: Type.Optional(StringEnum(CLUSTER_SORTS, { default: 'confidence_desc' })),
            minDivergence: Type.Optional(Type.Number({ minimum: 0, maximum: 100, default: 0 })),
            sourceKind: Type.Optional(StringEnum(['market'] as const)),
            status: Type.Optional(StringEnum(['open'] as const)),
            maxSnapshotAgeMinutes: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
            requirePriced: Type.Optional(Type.Boolean({ default: true })),
            fiat: FiatQuery,
          }),
          response: ok(PublicMatchesResponse),
        },
      },
      async (request, reply) => {
        const q = request.query;
        const { code, fx } = fiatOf(q.fiat);
        const limit = q.limit ?? 10;
        const offset = q.offset ?? 0;
        const query = {
          sort: q.sort ?? 'confidence_desc',
          minDivergence: q.minDivergence ?? 0,
          sourceKind: q.sourceKind ?? null,
          status: q.status ?? null,
          maxSnapshotAgeMinutes: q.maxSnapshotAgeMinutes ?? null,
          requirePriced: q.requirePriced ?? true,
        } as const;
        return cached(reply, `matches:${JSON.stringify(query)}:${limit}:${offset}:${code}`, LIST_TTL_MS, async () => {
          const clusters = publicClusters(await model().snapshot(), ctx.clock.now(), fx, query);
          const { page, pagination } = pageOf(clusters, limit, offset);
          return {
            body: {
              data: page,
              total: clusters.length,
              hasMore: pagination.hasMore,
              pagination: { limit, offset, nextOffset: pagination.hasMore ? offset + page.length : null },
              meta: { sort: query.sort, fiat: code, requirePriced: query.requirePriced },
            },
            sources: page.flatMap((c) => (c.events as { source: { id: string } }[]).map((e) => e.source.id)),
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/surprises',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Resolved binary events whose winner was priced under 50 a day before, least expected first',
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 24 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
            fiat: FiatQuery,
            source: Type.Optional(Type.String({ maxLength: 40 })),
            window: Type.Optional(Type.String({ maxLength: 20, description: `${Object.keys(SURPRISE_WINDOWS).join(' | ')}; unknown → all` })),
          }),
          response: ok(SurprisesResponse),
        },
      },
      async (request, reply) => {
        const source = venueQuery(request.query.source, 'query.source');
        const { code, fx } = fiatOf(request.query.fiat);
        const window = surpriseWindowOf(request.query.window);
        const limit = request.query.limit ?? 24;
        const offset = request.query.offset ?? 0;
        return cached(reply, `surprises:${source}:${window}:${limit}:${offset}:${code}`, SLOW_TTL_MS, async () => {
          const rows = surprises(await model().snapshot(), ctx.clock.now(), fx, source, window);
          const { page, pagination } = pageOf(rows, limit, offset);
          return { body: { data: page, window, pagination }, sources: page.map((e) => (e.event as { source: { id: string } }).source.id) };
        });
      },
    );

    app.get(
      '/api/prediction-markets/expiring',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Open events ending within `days`, soonest first (24 h volume ≥ 1,000 or lifetime ≥ 10,000)',
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
            fiat: FiatQuery,
            days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 7 })),
            source: Type.Optional(Type.String({ maxLength: 40 })),
          }),
          response: ok(ExpiringResponse),
        },
      },
      async (request, reply) => {
        const source = venueQuery(request.query.source, 'query.source');
        const { code, fx } = fiatOf(request.query.fiat);
        const { limit = 20, offset = 0, days = 7 } = request.query;
        return cached(reply, `expiring:${source}:${days}:${limit}:${offset}:${code}`, LIST_TTL_MS, async () => {
          const now = ctx.clock.now();
          const rows = expiring(await model().snapshot(), now, fx, source, days);
          const { page, pagination } = pageOf(rows, limit, offset);
          return {
            body: {
              data: page,
              pagination,
              meta: { totalExpiring: rows.length, window: { from: new Date(now).toISOString(), to: new Date(now + days * DAY_MS).toISOString() } },
            },
            sources: page.map((e) => (e.source as { id: string }).id),
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/volume-history',
      { config, schema: { tags: [TAG], summary: 'Daily global volume over real-money venues (rolling 90 days; a gap is null)', response: ok(VolumeHistoryResponse) } },
      async (_request, reply) =>
        cached(reply, 'volume-history', VOLUME_TTL_MS, async () => {
          const now = ctx.clock.now();
          const daily = await venueDailyVolumes(ctx.database.db, now - 90 * DAY_MS);
          return { body: volumeHistory(daily, now, null), sources: daily.map((d) => d.source) };
        }),
    );

    app.get(
      '/api/prediction-markets/event/:source/:slug/orderbook',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Order book of the event’s price-history outcome (polymarket and kalshi; null elsewhere). Prices are 0..1 fractions',
          params: EventParams,
          response: ok(OrderBookResponse),
        },
      },
      async (request, reply) => {
        const { source, slug } = request.params;
        const { row } = await marketOr404(source, slug);
        const leg = microOutcome(row);
        return cached(reply, `book:${source}/${slug}`, LIST_TTL_MS, async () => ({
          body: {
            source,
            slug,
            outcome: leg ? { name: leg.name, externalMarketId: leg.externalMarketId } : null,
            orderBook: MICROSTRUCTURE_VENUES.has(source) ? orderBookOf(row, row.lastCaptureAt?.toISOString() ?? null) : null,
          },
          sources: [source],
        }));
      },
    );

    app.get(
      '/api/prediction-markets/event/:source/:slug/trades',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Newest trades (at most 20) of the event’s price-history outcome (polymarket and kalshi; [] elsewhere)',
          params: EventParams,
          response: ok(TradesResponse),
        },
      },
      async (request, reply) => {
        const { source, slug } = request.params;
        const { row } = await marketOr404(source, slug);
        const leg = microOutcome(row);
        return cached(reply, `trades:${source}/${slug}`, LIST_TTL_MS, async () => {
          const supported = MICROSTRUCTURE_VENUES.has(source);
          const [captures, whales] = supported
            ? await Promise.all([recentCaptures(ctx.database.db, source, slug, TAPE_LIMIT + 1), recentWhales(ctx.database.db, TAPE_LIMIT, { source, slug })])
            : [[], []];
          return {
            body: { source, slug, outcome: leg ? { name: leg.name, externalMarketId: leg.externalMarketId } : null, trades: supported ? tapeOf(row, captures, whales) : [] },
            sources: [source],
          };
        });
      },
    );

    app.get(
      '/api/prediction-markets/whales/wallets',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Large-print wallets on the on-chain venues, largest notional first',
          querystring: Type.Object({
            window: Type.Optional(StringEnum(Object.keys(WALLET_WINDOWS) as ['7d', '30d'], { default: '7d' })),
            source: Type.Optional(StringEnum(WALLET_VENUES)),
          }),
          response: ok(WhaleWalletsResponse),
        },
      },
      async (request, reply) => {
        const window = request.query.window ?? '7d';
        const venues = request.query.source ? [request.query.source] : [...WALLET_VENUES];
        return cached(reply, `wallets:${window}:${venues.join(',')}`, SLOW_TTL_MS, async () => {
          const since = ctx.clock.now() - WALLET_WINDOWS[window] * DAY_MS;
          const rows = walletRows(await whaleWalletAggregates(ctx.database.db, venues, since));
          return { body: { window, venues, wallets: rows }, sources: venues };
        });
      },
    );

    app.get(
      '/api/prediction-markets/whales/wallets/:source/:wallet',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'One wallet’s observed large prints over 30 days (flow only, never holdings or PnL)',
          params: Type.Object({ source: StringEnum(WALLET_VENUES), wallet: Type.String({ pattern: WALLET_PATTERN }) }),
          response: ok(WhaleWalletResponse),
        },
      },
      async (request, reply) => {
        const { source, wallet } = request.params;
        return cached(reply, `wallet:${source}:${wallet.toLowerCase()}`, SLOW_TTL_MS, async () => {
          const since = ctx.clock.now() - 30 * DAY_MS;
          const fills = await walletFills(ctx.database.db, source, wallet, since);
          if (fills.length === 0) throw notFound('wallet_not_found', `no large prints of ${wallet} on ${source} in 30 days`);
          const [agg] = await whaleWalletAggregates(ctx.database.db, [source], since, wallet);
          return { body: walletProfile(source, agg?.wallet ?? wallet, agg?.traderName ?? null, fills), sources: [source] };
        });
      },
    );

    app.get(
      '/api/prediction-markets/events/:source/:slug/revisions',
      {
        config,
        schema: {
          tags: [TAG],
          summary: 'Append-only corrections of the event’s public facts, newest first; `asOf` rebuilds the fields as published then',
          params: EventParams,
          querystring: Type.Object({ asOf: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })) }),
          response: ok(RevisionsResponse),
        },
      },
      async (request, reply) => {
        const { source, slug } = request.params;
        const { row } = await marketOr404(source, slug);
        const asOf = request.query.asOf;
        return cached(reply, `revisions:${source}/${slug}:${asOf ?? ''}`, LIST_TTL_MS, async () => {
          const rows = await marketRevisions(ctx.database.db, source, slug, REVISIONS_CAP);
          const body: Record<string, unknown> = {
            subjectKey: `${source}:${row.marketId}`,
            revisions: rows.slice(0, REVISIONS_CAP).map(({ subjectKey: _s, ...r }) => ({
              ...r,
              evidence: { runId: null, captureId: null, parserVersion: null, matcherVersion: null, buildSha: null },
            })),
            truncated: rows.length > REVISIONS_CAP,
          };
          if (asOf !== undefined) {
            body.asOf = new Date(asOf).toISOString();
            body.reconstructed = await fieldsAsOf(ctx.database.db, source, slug, Date.parse(asOf));
          }
          return { body, sources: [source] };
        });
      },
    );

    app.get(
      '/api/prediction-markets/sources',
      {
        config,
        schema: { tags: [TAG], summary: 'The 12 venues with coverage (periodic) and live stats', querystring: Type.Object({ fiat: FiatQuery }), response: ok(SourcesResponse) },
      },
      async (request, reply) => {
        const { code, fx } = fiatOf(request.query.fiat);
        return cached(reply, `sources:${code}`, SLOW_TTL_MS, async () => {
          const facts = await venueCatalogFacts(ctx.database.db);
          return { body: { sources: sourceRows(await model().snapshot(), facts, ctx.clock.now(), fx), fiat: code }, sources: VENUES.map((v) => v.id) };
        });
      },
    );

    app.get(
      '/api/prediction-markets/sources/health',
      { config, schema: { tags: [TAG], summary: 'Per-venue ingest lag, freshness and completeness: poll before trusting the data', response: ok(SourcesHealthResponse) } },
      async (_request, reply) =>
        cached(reply, 'sources-health', LIST_TTL_MS, async () => ({ body: sourcesHealth(await model().snapshot(), ctx.clock.now()), sources: VENUES.map((v) => v.id) })),
    );
  };
}
