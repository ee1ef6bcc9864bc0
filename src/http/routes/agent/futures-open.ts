import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { openFuturesPosition } from '../../../services/futures/open.js';
import { tradeableCoin } from '../../../services/spot-trading.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { agentErrors, StrictBody } from '../../schemas.js';
import {
  AgentTrace,
  CoinId,
  FuturesSideSchema,
  futuresErrors,
  IdempotencyKey,
  Leverage,
  Margin,
  PositionEnvelope,
  retryOnContention,
  TriggerPrice,
} from './futures-schemas.js';

export const FUTURES_OPEN_URL = '/api/agent/futures/open';

export function futuresOpenRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      FUTURES_OPEN_URL,
      {
        config: { scope: 'trade:futures', tradeWrite: true, ledger: { eventType: 'write', venue: 'futures' } },
        schema: {
          summary: 'Open an isolated futures position, or add to the same-side one (idempotent)',
          description:
            '201 new position; 200 added to the open same-side position (same leverage) or an idempotent replay; ' +
            '422 futures_entry_blocked with blockReasons; 403 feature_disabled when FUTURES_OPEN_ENABLED=false; 503 contention_retry: retry with the same key.',
          tags: ['agent', 'futures'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          body: StrictBody({
            coinId: CoinId,
            side: FuturesSideSchema,
            leverage: Leverage,
            marginMusd: Margin,
            idempotencyKey: IdempotencyKey,
            stopLossPrice: Type.Optional(TriggerPrice),
            takeProfitPrice: Type.Optional(TriggerPrice),
            agentTrace: Type.Optional(AgentTrace),
          }),
          response: { 200: PositionEnvelope, 201: PositionEnvelope, ...agentErrors, ...futuresErrors },
        },
      },
      async (request, reply) => {
        if (!ctx.config.futuresOpenEnabled) {
          throw new ApiError(403, 'feature_disabled', 'futures mock trading is not enabled');
        }
        const key = request.agentKey!;
        const body = request.body;
        request.ledgerNote = { idempotencyKey: body.idempotencyKey };
        // the cash coin is refused as spot refuses it (400 invalid_request naming body.coinId)
        const coin = tradeableCoin(ctx.market, body.coinId, 'body.coinId');
        const result = await retryOnContention(() =>
          openFuturesPosition(
            ctx.database.db,
            ctx.market,
            ctx.clock.now(),
            {
              keyId: key.keyId,
              coin,
              side: body.side,
              leverage: body.leverage,
              marginMusd: body.marginMusd,
              stopLossPrice: body.stopLossPrice,
              takeProfitPrice: body.takeProfitPrice,
              idempotencyKey: body.idempotencyKey,
            },
            { route: `POST ${FUTURES_OPEN_URL}`, body: body as Record<string, unknown> },
          ),
        );
        const position = result.body.position as { id: number };
        request.ledgerNote = {
          idempotencyKey: body.idempotencyKey,
          relatedEntityType: 'futures_position',
          relatedEntityId: position.id,
          ...(result.replay ? { ledgerStatus: 'idempotent_replay' as const } : {}),
        };
        return reply.status(result.statusCode).send(result.body as never);
      },
    );
  };
}
