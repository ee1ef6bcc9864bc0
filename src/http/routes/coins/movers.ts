import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { ErrorBody } from '../../schemas.js';

const MOVERS_MAX_AGE_SECONDS = 30;

const Mover = Type.Object({
  ucid: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  change24h: Type.String({ description: 'percent, decimal string' }),
  currentPrice: Type.String({ description: 'USD, decimal string' }),
});

/** Public movers (an extension of the contract): coins by 24 h change, as decimal strings. */
export function coinMoverRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const [path, direction] of [
      ['/api/coins/top-gainers', -1],
      ['/api/coins/top-losers', 1],
    ] as const) {
      app.get(
        path,
        {
          config: { publicRate: true },
          schema: {
            summary: direction < 0 ? 'Coins with the largest 24 h gain' : 'Coins with the largest 24 h loss',
            tags: ['coins'],
            querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 3 }) }),
            response: { 200: Type.Array(Mover), 400: ErrorBody, 429: ErrorBody, 503: ErrorBody },
          },
        },
        async (request, reply) => {
          const reads = ctx.marketReads;
          if (!reads) throw new ApiError(503, 'market_data_unavailable', 'market data is not running in this process');
          const rows = reads
            .coins()
            .map((coin) => ({ coin, quote: reads.quote(coin.coinId) }))
            .filter((r) => r.quote !== null && r.quote.change24h !== null)
            .sort((a, b) => direction * (a.quote!.change24h! - b.quote!.change24h!) || a.coin.rank - b.coin.rank)
            .slice(0, request.query.limit);
          reply.header('cache-control', `public, max-age=${MOVERS_MAX_AGE_SECONDS}`);
          return rows.map(({ coin, quote }) => ({
            ucid: coin.coinId,
            symbol: coin.symbol,
            name: coin.name,
            slug: coin.slug,
            change24h: quote!.change24h!.toFixed(4),
            currentPrice: String(quote!.priceUsd),
          }));
        },
      );
    }
  };
}
