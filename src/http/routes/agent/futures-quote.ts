import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { quoteFutures } from '../../../services/futures/quote.js';
import { tradeableCoin } from '../../../services/spot-trading.js';
import type { AppContext } from '../../context.js';
import { agentErrors, StrictBody } from '../../schemas.js';
import { AgentTrace, CoinId, FuturesSideSchema, futuresErrors, Leverage, Margin } from './futures-schemas.js';
import { FuturesQuoteResponse } from '../../responses/futures.js';

export function futuresQuoteRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/agent/futures/quote',
      {
        config: { scope: 'read', ledger: { eventType: 'quote', venue: 'futures' } },
        schema: {
          summary: 'Quote an isolated futures position: notional, size, liquidation price, fee, entry gates (read-only)',
          tags: ['agent', 'futures'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          body: StrictBody({
            coinId: CoinId,
            side: FuturesSideSchema,
            leverage: Leverage,
            marginMusd: Margin,
            agentTrace: Type.Optional(AgentTrace),
          }),
          response: {
            200: FuturesQuoteResponse,
            ...agentErrors,
            404: futuresErrors[404],
          },
        },
      },
      async (request) => {
        const body = request.body;
        const coin = tradeableCoin(ctx.market, body.coinId, 'body.coinId');
        const quote = await quoteFutures(ctx.database.db, ctx.market, ctx.clock.now(), {
          keyId: request.agentKey!.keyId,
          coin,
          side: body.side,
          leverage: body.leverage,
          marginMusd: body.marginMusd,
          openEnabled: ctx.config.futuresOpenEnabled,
        });
        request.ledgerNote = { observation: quote.observation, ...(quote.eligible ? {} : { blockReasons: quote.blockReasons }) };
        return quote;
      },
    );
  };
}
