/** `GET /api/agent/news` (reference A1): stories about the requested coins, most important first. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { MarketReads } from '../../../marketdata/reads.js';
import { rankStories, type NewsCoin } from '../../../news/types.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest } from '../../errors.js';
import { agentErrors, Nullable, StringEnum } from '../../schemas.js';

export const NEWS_MAX_COINS = 25;
const NEWS_MAX_AGE_SECONDS = 60;

const NewsItem = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    source: Type.String({ description: 'publisher' }),
    url: Type.String(),
    publishedAt: Type.String({ format: 'date-time' }),
    ageMinutes: Type.Integer({ minimum: 0 }),
    category: Nullable(Type.String()),
    sentiment: Nullable(StringEnum(['bullish', 'bearish', 'neutral'] as const)),
    sentimentConfidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    importance: Nullable(Type.Integer({ minimum: 0, maximum: 10, description: '8 and above = market-moving' })),
    coins: Type.Array(Type.String(), { description: 'slugs of the requested coins the story concerns' }),
    simulated: Type.Boolean({ description: 'true for the simulated wire (derived from simulated market moves)' }),
  },
  { additionalProperties: false },
);

export const NewsResponse = Type.Object(
  {
    coins: Type.Array(Type.String(), { description: 'coin slugs the request resolved to' }),
    asOf: Type.String({ format: 'date-time' }),
    mode: StringEnum(['sim', 'live'] as const),
    items: Type.Array(NewsItem),
  },
  { additionalProperties: false },
);

/** A comma-separated list of symbols or slugs; each must name a coin exactly (no fuzzy match). */
function resolveCoins(reads: MarketReads, raw: string): NewsCoin[] {
  const tokens = [...new Set(raw.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean))];
  if (tokens.length === 0) throw invalidRequest('query.coins', 'coins must list at least one symbol or slug');
  if (tokens.length > NEWS_MAX_COINS) throw invalidRequest('query.coins', `coins lists at most ${NEWS_MAX_COINS} symbols or slugs`);
  const coins = reads.coins();
  const found: NewsCoin[] = [];
  const unknown: string[] = [];
  for (const t of tokens) {
    // Symbols are not unique: the larger market cap wins, as in /resolve (coins() is rank ordered).
    const coin = coins.find((c) => c.slug.toLowerCase() === t) ?? coins.find((c) => c.symbol.toLowerCase() === t);
    if (coin) found.push(coin);
    else unknown.push(t);
  }
  if (found.length === 0) throw invalidRequest('query.coins', `no known coin in coins (unknown: ${unknown.slice(0, 5).join(', ')}); coins takes symbols or slugs (btc, ethereum), not coinIds`);
  return [...new Map(found.map((c) => [c.coinId, c])).values()];
}

export function newsRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/agent/news',
      {
        config: { scope: 'read', ledger: { eventType: 'read' } },
        schema: {
          summary: 'News about coins: stories with sentiment and importance 0..10 (simulated wire unless MARKET_DATA=live)',
          tags: ['agent', 'market'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          querystring: Type.Object({
            coins: Type.String({ minLength: 1, maxLength: 1000, description: `comma-separated symbols or slugs, at most ${NEWS_MAX_COINS}` }),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 8 })),
            hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, default: 48, description: 'look-back' })),
            minImportance: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 0 })),
          }),
          response: { 200: NewsResponse, ...agentErrors, 503: agentErrors[400] },
        },
      },
      async (request, reply) => {
        const reads = ctx.marketReads;
        const src = ctx.news();
        if (!reads || !src) throw new ApiError(503, 'market_data_unavailable', 'market data is not running in this process');
        const coins = resolveCoins(reads, request.query.coins);
        const { limit = 8, hours = 48, minImportance = 0 } = request.query;
        const now = ctx.clock.now();
        const slugOf = new Map(coins.map((c) => [c.coinId, c.slug]));
        const items = rankStories(await src.stories(coins, now - hours * 3_600_000, now), minImportance, limit);
        reply.header('cache-control', `private, max-age=${NEWS_MAX_AGE_SECONDS}`);
        return {
          coins: coins.map((c) => c.slug),
          asOf: new Date(now).toISOString(),
          mode: src.mode,
          items: items.map((i) => ({
            id: i.id,
            title: i.title,
            source: i.source,
            url: i.url,
            publishedAt: new Date(i.publishedAtMs).toISOString(),
            ageMinutes: Math.max(0, Math.floor((now - i.publishedAtMs) / 60_000)),
            category: i.category,
            sentiment: i.sentiment,
            sentimentConfidence: i.sentimentConfidence,
            importance: i.importance,
            coins: i.coinIds.map((id) => slugOf.get(id)!).filter(Boolean),
            simulated: i.simulated,
          })),
        };
      },
    );
  };
}
