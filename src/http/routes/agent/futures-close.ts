import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { closeFuturesPosition } from '../../../services/futures/close.js';
import type { AppContext } from '../../context.js';
import { agentErrors, StrictBody } from '../../schemas.js';
import { AgentTrace, futuresErrors, IdempotencyKey, PositionEnvelope, PositionId, positionCoinOf, retryOnContention } from './futures-schemas.js';

export const FUTURES_CLOSE_URL = '/api/agent/futures/close';

export function futuresCloseRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      FUTURES_CLOSE_URL,
      {
        config: { scope: 'trade:futures', tradeWrite: true, ledger: { eventType: 'write', venue: 'futures' } },
        schema: {
          summary: 'Close all or a fraction of a futures position at the mark (idempotent)',
          description:
            'fraction in (0, 1], default 1. A mark through the liquidation price settles the whole position as a liquidation. ' +
            '404 position_not_found; 409 position_not_open or idempotency_key_conflict; 422 no_mark; 503 contention_retry.',
          tags: ['agent', 'futures'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          body: StrictBody({
            positionId: PositionId,
            fraction: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 1 })),
            idempotencyKey: IdempotencyKey,
            agentTrace: Type.Optional(AgentTrace),
          }),
          response: { 200: PositionEnvelope, ...agentErrors, ...futuresErrors },
        },
      },
      async (request, reply) => {
        const key = request.agentKey!;
        const body = request.body;
        const fraction = body.fraction ?? 1;
        request.ledgerNote = { idempotencyKey: body.idempotencyKey, relatedEntityType: 'futures_position', relatedEntityId: body.positionId };
        const result = await retryOnContention(() =>
          closeFuturesPosition(
            ctx.database.db,
            ctx.market,
            ctx.clock.now(),
            { keyId: key.keyId, positionId: body.positionId, fraction, idempotencyKey: body.idempotencyKey },
            // the schema fills the default fraction in: {fraction: 1} and no fraction are the same request
            { route: `POST ${FUTURES_CLOSE_URL}`, body: body as Record<string, unknown> },
          ),
        );
        if (result.replay) request.ledgerNote = { ...request.ledgerNote, ledgerStatus: 'idempotent_replay' };
        const coinId = positionCoinOf(result.body);
        if (coinId !== undefined) request.ledgerNote = { ...request.ledgerNote, instrument: coinId };
        return reply.status(result.statusCode).send(result.body as never);
      },
    );
  };
}
