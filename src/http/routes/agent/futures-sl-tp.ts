import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { setTriggers } from '../../../services/futures/sl-tp.js';
import type { AppContext } from '../../context.js';
import { agentErrors, StrictBody } from '../../schemas.js';
import { AgentTrace, futuresErrors, PositionEnvelope, PositionId, retryOnContention, TriggerPrice } from './futures-schemas.js';

export function futuresSlTpRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/agent/futures/sl-tp',
      {
        config: { scope: 'trade:futures', ledger: { eventType: 'write', venue: 'futures' } },
        schema: {
          summary: 'Set or clear the stop-loss / take-profit of an open futures position',
          description:
            'A number sets, null clears, an absent field keeps. Long: liquidation < SL < mark < TP; short: TP < mark < SL < liquidation. ' +
            '422 sl_tp_invalid with blockReasons, or no_mark; 404 position_not_found; 409 position_not_open.',
          tags: ['agent', 'futures'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          body: StrictBody({
            positionId: PositionId,
            stopLossPrice: Type.Optional(TriggerPrice),
            takeProfitPrice: Type.Optional(TriggerPrice),
            agentTrace: Type.Optional(AgentTrace),
          }),
          response: { 200: PositionEnvelope, ...agentErrors, ...futuresErrors },
        },
      },
      async (request) => {
        const key = request.agentKey!;
        const body = request.body;
        request.ledgerNote = { relatedEntityType: 'futures_position', relatedEntityId: body.positionId };
        const result = await retryOnContention(() =>
          setTriggers(ctx.database.db, ctx.market, ctx.clock.now(), {
            keyId: key.keyId,
            positionId: body.positionId,
            stopLossPrice: body.stopLossPrice,
            takeProfitPrice: body.takeProfitPrice,
          }),
        );
        request.ledgerNote = { ...request.ledgerNote, instrument: result.position.coin.ucid };
        return result;
      },
    );
  };
}
