import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { buildObservation } from '../../../domain/observation.js';
import { asReplay, cancelOrder, fillIdOf, checkOrderShape, placeSpotOrder, quoteSpot, tradeableCoin, type OrderInput } from '../../../services/spot-trading.js';
import type { AppContext } from '../../context.js';
import { AgentTrace, agentErrors, ErrorBody, IdempotencyKey, Nullable, StrictBody, StringEnum } from '../../schemas.js';
import { SpotOrderResponse, SpotQuoteResponse } from '../../responses/spot.js';

const security: { [label: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const CoinId = Type.String({ minLength: 1, maxLength: 64, description: 'UCID (not a ticker)' });
const Side = StringEnum(['buy', 'sell'] as const);
/** Base units; capped so arithmetic stays meaningful. */
// Amounts count to 8 decimals (finer digits are dropped): a smaller quantity would be 0 (a quote echoed `quantity: 0`).
const Quantity = Type.Number({ minimum: 1e-8, maximum: 1e12, description: 'coin units; digits past the 8th decimal are dropped' });
const Price = Type.Number({ exclusiveMinimum: 0, maximum: 1e12 });

export const ORDER_ROUTE = 'POST /api/agent/spot/order';

export function spotRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/agent/spot/quote',
      {
        config: { scope: 'read', ledger: { eventType: 'quote', venue: 'spot' } },
        schema: {
          summary: 'Price an immediate spot fill against the book (read-only; refusals are values)',
          tags: ['agent'],
          security,
          body: StrictBody({ coinId: CoinId, side: Side, quantity: Quantity, agentTrace: Type.Optional(AgentTrace) }),
          response: {
            200: SpotQuoteResponse,
            404: ErrorBody,
            ...agentErrors,
          },
        },
      },
      async (request) => {
        const { coinId, side, quantity } = request.body;
        const coin = tradeableCoin(ctx.market, coinId, 'body.coinId');
        const nowMs = ctx.clock.now();
        const quote = await quoteSpot(ctx.database.db, ctx.market, request.agentKey!.keyId, coin, side, quantity, nowMs);
        const observation = buildObservation({
          endpoint: 'POST /api/agent/spot/quote',
          source: ctx.market.source,
          observedAtMs: nowMs,
          sourceAsOfMs: quote.freshness.asOf ? Date.parse(quote.freshness.asOf) : null,
          freshness: quote.freshness,
          inputs: { coinId, side, quantity },
          dataset: { kind: 'spot_price', coinId },
          rowCount: quote.executionPrice === null ? 0 : 1,
        });
        request.ledgerNote = { observation, blockReasons: quote.blockReasons };
        // priceTiming is built loosely in the service; the response check holds it to the schema.
        return { ...quote, observation } as Static<typeof SpotQuoteResponse>;
      },
    );

    app.post(
      '/api/agent/spot/order',
      {
        config: { scope: 'trade:spot', tradeWrite: true, ledger: { eventType: 'write', venue: 'spot' } },
        schema: {
          summary: 'Place a spot order: market (fills now), limit (rests) or stop (stop-limit); idempotent by idempotencyKey',
          description: '503 contention_retry when the book stays busy with other writes: retry with the same idempotencyKey.',
          tags: ['agent'],
          security,
          body: StrictBody({
            coinId: CoinId,
            side: Side,
            orderType: StringEnum(['market', 'limit', 'stop'] as const),
            quantity: Quantity,
            limitPrice: Type.Optional(Nullable(Price)),
            stopPrice: Type.Optional(Nullable(Price)),
            idempotencyKey: IdempotencyKey,
            agentTrace: Type.Optional(AgentTrace),
          }),
          response: {
            200: SpotOrderResponse,
            404: ErrorBody,
            409: ErrorBody,
            ...agentErrors,
            503: ErrorBody,
          },
        },
      },
      async (request) => {
        const key = request.agentKey!;
        const input = request.body as OrderInput;
        request.ledgerNote = { idempotencyKey: input.idempotencyKey };
        checkOrderShape(input);
        const coin = tradeableCoin(ctx.market, input.coinId, 'body.coinId');
        const result = await placeSpotOrder(ctx.database.db, { market: ctx.market, nowMs: ctx.clock.now() }, key.keyId, coin, input, ORDER_ROUTE);
        const body = result.replay ? asReplay(result.body) : result.body;
        const fillId = fillIdOf(body);
        const restingId = body.restingOrderId as number | undefined;
        request.ledgerNote = {
          idempotencyKey: input.idempotencyKey,
          ...(result.replay ? { ledgerStatus: 'idempotent_replay' as const } : {}),
          ...(fillId !== undefined ? { relatedEntityType: 'spot_fill', relatedEntityId: fillId } : {}),
          ...(restingId !== undefined ? { relatedEntityType: 'spot_order', relatedEntityId: restingId } : {}),
        };
        return body as Static<typeof SpotOrderResponse>;
      },
    );

    app.post(
      '/api/agent/spot/order/:id/cancel',
      {
        config: { scope: 'trade:spot', tradeWrite: true, ledger: { eventType: 'cancel', venue: 'spot' } },
        schema: {
          summary: 'Cancel a resting spot order and release what it froze; naturally idempotent by id',
          description: '503 contention_retry when the book stays busy with other writes: send it again.',
          tags: ['agent'],
          security,
          params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }) }),
          response: {
            200: Type.Object({ ok: Type.Boolean(), alreadyClosed: Type.Optional(Type.Boolean()) }),
            404: ErrorBody,
            ...agentErrors,
            503: ErrorBody,
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        request.ledgerNote = { relatedEntityType: 'spot_order', relatedEntityId: id };
        return cancelOrder(ctx.database.db, request.agentKey!.keyId, id, ctx.clock.now());
      },
    );
  };
}
