import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { openPosition } from '../../../services/futures/open.js';
import { positionView } from '../../../services/futures/view.js';
import { runIdempotent } from '../../../services/idempotency.js';
import { setWriteLockTimeout } from '../../../storage/futures-repo.js';
import type { AppContext } from '../../context.js';
import { ApiError, notFound } from '../../errors.js';
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
        const coin = ctx.market.coin(body.coinId);
        if (!coin) throw notFound('coin_not_found', `unknown coinId ${body.coinId}`);
        const result = await retryOnContention(() =>
          runIdempotent(
            ctx.database.db,
            { keyId: key.keyId, idempotencyKey: body.idempotencyKey, route: `POST ${FUTURES_OPEN_URL}`, body: body as Record<string, unknown> },
            async (tx) => {
              await setWriteLockTimeout(tx);
              const opened = await openPosition(tx, ctx.market, ctx.clock.now(), {
                keyId: key.keyId,
                coin,
                side: body.side,
                leverage: body.leverage,
                marginMusd: body.marginMusd,
                stopLossPrice: body.stopLossPrice,
                takeProfitPrice: body.takeProfitPrice,
                idempotencyKey: body.idempotencyKey,
              });
              return { statusCode: opened.statusCode, body: { position: positionView(opened.row, opened.mark) } };
            },
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
