import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CANDLE_RANGES, CANDLE_RANGE_NAMES, convertCandles, DEFAULT_CANDLE_RANGE, type CandleRange } from '../../../domain/candles.js';
import { spotFreshness } from '../../../domain/freshness.js';
import { buildObservation } from '../../../domain/observation.js';
import { resolveCoin } from '../../../domain/resolve.js';
import { similarCoins } from '../../../domain/similar-coins.js';
import type { MarketReads } from '../../../marketdata/reads.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest, notFound } from '../../errors.js';
import { agentErrors, ErrorBody, FIAT_DESCRIPTION, StringEnum } from '../../schemas.js';
import { answerNotModified, jsonBytes, sendJsonText, strongEtag, VersionedCache, weakEtag } from '../../hot-responses.js';
import { sanitize } from '../../../ledger/summaries.js';
import { isoAt } from '../../../util/iso-time.js';
import { coinMatchView } from './market-views.js';
import { CandlesResponse, MarketContextResponse, ResolveResponse } from '../../responses/account.js';

const SIMILAR_LIMIT = 6;
const CANDLES_MAX_AGE_SECONDS = 60;
// every route here answers from a cache with an ETag (If-None-Match → 304)
const readRoute = { scope: 'read' as const, ledger: { eventType: 'read' as const }, conditional: true };
const security: { [label: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];


const round = (value: number | null, places: number): number | null =>
  value === null ? null : Math.round(value * 10 ** places) / 10 ** places;

function requireReads(ctx: AppContext): MarketReads {
  if (!ctx.marketReads) throw new ApiError(503, 'market_data_unavailable', 'market data is not running in this process');
  return ctx.marketReads;
}

function requireCoin(reads: MarketReads, coinId: string) {
  const coin = reads.coin(coinId);
  if (!coin) throw notFound('coin_not_found', `no coin with coinId ${coinId}`);
  return coin;
}

const NO_MARKETS: unknown[] = [];
const CANDLES_CACHE_CONTROL = `private, max-age=${CANDLES_MAX_AGE_SECONDS}`;

/** A hot read's per-request part as built for one instant: what every request of that instant answers. */
interface Answer {
  now: number;
  asOfMs: number | null;
  price?: number | null;
  change24h?: number | null;
  observation: unknown;
  /** The response object, for the ledger summary (the bytes below are what is sent). */
  response: object;
  /** Its ledger summary, made once: `sanitize` of `response`. */
  summary: unknown;
  bytes: Buffer;
}

function answerOf(stamp: Pick<Answer, 'now' | 'asOfMs' | 'price' | 'change24h'>, response: object, observation: unknown, bytes: Buffer): Answer {
  return { ...stamp, observation, response, summary: sanitize(response), bytes };
}

function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: Answer): never {
  request.ledgerNote = { ...request.ledgerNote, observation: answer.observation };
  request.ledgerResponse = answer.response;
  request.ledgerSummary = answer.summary;
  return sendJsonText(reply, answer.bytes);
}

function resolveBody(coins: Parameters<typeof resolveCoin>[0], query: string) {
  const result = resolveCoin(coins, query);
  return { query: result.query, match: result.match && coinMatchView(result.match), alternatives: result.alternatives.map(coinMatchView) };
}

export function marketRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  // Resolve answers, serialized once per query and coin universe.
  const resolveCache = new VersionedCache<{ body: ReturnType<typeof resolveBody>; etag: string; bytes: Buffer }>();
  // Market context bodies, serialized once per coin and data version.
  const contextCache = new VersionedCache<{ body: { relatedMarkets: unknown[] }; head: Buffer; etag: string; last?: Answer }>();
  const relatedIds = new WeakMap<object, number>();
  let relatedSeq = 0;
  const idOf = (related: object) => {
    let id = relatedIds.get(related);
    if (id === undefined) relatedIds.set(related, (id = relatedSeq += 1));
    return id;
  };
  return async (app) => {
    app.get(
      '/api/agent/resolve',
      {
        config: readRoute,
        schema: {
          summary: 'Resolve a symbol, slug or name to a coinId (best match by market-cap rank, plus alternatives)',
          tags: ['agent', 'market'],
          security,
          querystring: Type.Object({
            q: Type.Optional(Type.String({ maxLength: 100, description: 'symbol, name, slug or id; required (1..100 characters) unless symbol is given' })),
            symbol: Type.Optional(Type.String({ maxLength: 100, description: 'alias of q' })),
          }),
          response: { 200: ResolveResponse, ...agentErrors, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const query = request.query.q ?? request.query.symbol;
        if (query === undefined || query.trim() === '') throw invalidRequest('query.q', 'q (or symbol) is required and must not be empty');
        const coins = requireReads(ctx).coins();
        const cached = resolveCache.get(query, coins, () => {
          const body = resolveBody(coins, query);
          // The route's own serializer, once: the same bytes it would write on every request.
          return { body, etag: strongEtag(JSON.stringify(body)), bytes: Buffer.from(reply.serialize(body) as string) };
        });
        if (answerNotModified(request, reply, cached.etag)) return reply as never;
        request.ledgerResponse = cached.body;
        return sendJsonText(reply, cached.bytes);
      },
    );

    app.get(
      '/api/agent/market/:coinId',
      {
        config: readRoute,
        schema: {
          summary: 'Market context of one coin: price, sentiment, Fear & Greed, related markets, similar coins',
          tags: ['agent', 'market'],
          security,
          params: Type.Object({ coinId: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: MarketContextResponse, 404: ErrorBody, ...agentErrors, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const reads = requireReads(ctx);
        const coin = requireCoin(reads, request.params.coinId);
        const now = ctx.clock.now();
        const quote = reads.quote(coin.coinId);
        const fearGreed = reads.fearGreed();
        const related = (await ctx.relatedMarkets?.(coin.coinId)) ?? NO_MARKETS;
        // Everything but asOf, freshness and the observation is fixed by the market version, the
        // PM snapshot's related markets (the same array while unchanged) and Fear & Greed.
        const cached = contextCache.get(coin.coinId, `${reads.version()}|${idOf(related)}|${JSON.stringify(fearGreed)}`, () => {
          const body = {
            coin: { coinId: coin.coinId, symbol: coin.symbol, name: coin.name, marketCapRank: coin.rank, categories: [...coin.categories] },
            price: quote && {
              usd: quote.priceUsd,
              change1h: round(quote.change1h, 4),
              change24h: round(quote.change24h, 4),
              change7d: round(quote.change7d, 4),
              marketCapUsd: quote.marketCapUsd === null ? null : Math.round(quote.marketCapUsd),
              volume24hUsd: Math.round(quote.volume24hUsd),
            },
            // The reference's timestamps of these readings are not tracked: sent as null, not left out.
            sentiment: { ...(quote?.sentiment ?? { bullishVotes: 0, bearishVotes: 0, totalVotes: 0, bullishPct: null }), dayUtc: null, updatedAt: null },
            fearGreed: fearGreed && { ...fearGreed, fetchedAt: null },
            relatedMarkets: related.slice(0, 3),
            similarCoins: similarCoins(reads.coins(), coin.coinId, SIMILAR_LIMIT).map((s) => ({
              coinId: s.coin.coinId,
              slug: s.coin.slug,
              symbol: s.coin.symbol,
              name: s.coin.name,
              marketCapRank: s.coin.rank,
              sharedCategoryCount: s.sharedCategoryCount,
            })),
          };
          const head = JSON.stringify(body).slice(0, -1);
          return { body, head: Buffer.from(head), etag: `W/${strongEtag(head)}` };
        });
        if (answerNotModified(request, reply, cached.etag)) return reply as never;
        // The per-request part is fixed by the instant and the quote: requests in the same
        // millisecond share it (bytes, observation and ledger summary) instead of rebuilding it.
        const asOfMs = quote?.asOfMs ?? null;
        const price = quote?.priceUsd ?? null;
        const change24h = round(quote?.change24h ?? null, 4);
        let answer = cached.last;
        if (!answer || answer.now !== now || answer.asOfMs !== asOfMs || answer.price !== price || answer.change24h !== change24h) {
          const freshness = spotFreshness(asOfMs, now);
          const observation = buildObservation({
            endpoint: 'GET /api/agent/market/{coinId}',
            source: reads.source,
            observedAtMs: now,
            sourceAsOfMs: asOfMs,
            freshness,
            inputs: { coinId: coin.coinId },
            dataset: { price, change24h, relatedMarkets: cached.body.relatedMarkets.length },
            rowCount: 1,
          });
          const tail = { asOf: isoAt(asOfMs ?? now), freshness, futuresEntryEligibility: futuresEntryEligibility(now), observation };
          answer = cached.last = answerOf({ now, asOfMs, price, change24h }, { ...cached.body, ...tail }, observation, jsonBytes(cached.head, `,${JSON.stringify(tail).slice(1)}`));
        }
        return sendAnswer(request, reply, answer);
      },
    );

    // Candle responses are serialized once per market version and reused across requests;
    // only the observation is per request.
    const candleCache = new VersionedCache<{ coin: object; candles: unknown[]; head: Buffer; last?: Answer }>();
    app.get(
      '/api/agent/market/:coinId/candles',
      {
        config: readRoute,
        schema: {
          summary: 'Sampled composite-price candles (oldest to newest; t in unix seconds; v = mean rolling 24 h USD volume)',
          tags: ['agent', 'market'],
          security,
          params: Type.Object({ coinId: Type.String({ minLength: 1, maxLength: 64 }) }),
          querystring: Type.Object({
            range: Type.Optional(StringEnum(CANDLE_RANGE_NAMES, { default: DEFAULT_CANDLE_RANGE })),
            fiat: Type.Optional(Type.String({ minLength: 3, maxLength: 3, default: 'USD', description: FIAT_DESCRIPTION })),
          }),
          response: { 200: CandlesResponse, 404: ErrorBody, ...agentErrors, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const reads = requireReads(ctx);
        const range = (request.query.range ?? DEFAULT_CANDLE_RANGE) as CandleRange;
        const fiat = (request.query.fiat ?? 'USD').toUpperCase();
        const coin = requireCoin(reads, request.params.coinId);
        const rateToUsd = reads.fiatRate(fiat);
        if (rateToUsd === null) throw invalidRequest('query.fiat', `unsupported fiat currency ${fiat}`);
        const now = ctx.clock.now();
        const version = reads.version();
        reply.header('cache-control', CANDLES_CACHE_CONTROL);
        if (answerNotModified(request, reply, weakEtag('c', coin.coinId, range, fiat, version))) return reply as never;
        const cached = candleCache.get(`${coin.coinId}|${range}|${fiat}`, version, () => {
          const candles = convertCandles(reads.candles(coin.coinId, range), rateToUsd);
          const coinHead = { ucid: coin.coinId, slug: coin.slug, symbol: coin.symbol, name: coin.name };
          return { coin: coinHead, candles, head: Buffer.from(`${JSON.stringify({ coin: coinHead, range, fiat, rateToUsd }).slice(0, -1)},"candles":${JSON.stringify(candles)}`) };
        });
        // Only the observation is per request, and it is fixed by the instant and the price's
        // as-of time: requests in the same millisecond share it.
        const asOfMs = reads.price(coin.coinId)?.asOfMs ?? null;
        let answer = cached.last;
        if (!answer || answer.now !== now || answer.asOfMs !== asOfMs) {
          const observation = buildObservation({
            endpoint: 'GET /api/agent/market/{coinId}/candles',
            source: reads.source,
            observedAtMs: now,
            sourceAsOfMs: asOfMs,
            freshness: spotFreshness(asOfMs, now),
            inputs: { coinId: coin.coinId, range, fiat },
            dataset: { barSeconds: CANDLE_RANGES[range].barSeconds, version },
            rowCount: cached.candles.length,
          });
          const response = { coin: cached.coin, range, fiat, rateToUsd, candles: cached.candles, observation };
          answer = cached.last = answerOf({ now, asOfMs }, response, observation, jsonBytes(cached.head, `,"observation":${JSON.stringify(observation)}}`));
        }
        return sendAnswer(request, reply, answer);
      },
    );
  };
}

/** Reference clients check this before opening futures; ours need no perpetual reference (supplement 2.23). */
function futuresEntryEligibility(nowMs: number) {
  return {
    status: 'eligible' as const,
    referenceRequired: false as const,
    venue: null,
    symbol: null,
    referenceFetchedAt: null,
    maxReferenceAgeHours: null,
    evaluatedAt: isoAt(nowMs),
  };
}
