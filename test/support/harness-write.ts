import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Decimal } from '../../src/domain/money.js';
import type { AppContext } from '../../src/http/context.js';
import { ApiError } from '../../src/http/errors.js';
import { AgentTrace, StrictBody } from '../../src/http/schemas.js';
import { runIdempotent } from '../../src/services/idempotency.js';
import { lockWallet, postCash } from '../../src/storage/books-repo.js';

export const HARNESS_URL = '/api/agent/test/freeze';

/**
 * A test-only trade write: moves `amount` mUSD from available to frozen through the real
 * idempotency module, book lock and journal. `fail: true` throws after posting, to prove a
 * crash mid-write leaves nothing behind.
 */
export function registerHarnessWrite(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    HARNESS_URL,
    {
      config: { scope: 'read', tradeWrite: true, ledger: { eventType: 'write', venue: 'spot' } },
      schema: {
        body: StrictBody({
          amount: Type.Number({ exclusiveMinimum: 0 }),
          idempotencyKey: Type.String({ minLength: 1, maxLength: 128 }),
          fail: Type.Optional(Type.Boolean()),
          agentTrace: Type.Optional(AgentTrace),
        }),
      },
    },
    async (request, reply) => {
      const key = request.agentKey!;
      const body = request.body as { amount: number; idempotencyKey: string; fail?: boolean };
      const result = await runIdempotent(
        ctx.database.db,
        { keyId: key.keyId, idempotencyKey: body.idempotencyKey, route: `POST ${HARNESS_URL}`, body: request.body as Record<string, unknown> },
        async (tx) => {
          const wallet = await lockWallet(tx, key.keyId);
          const amount = new Decimal(body.amount);
          await postCash(tx, wallet.id, [
            { bucket: 'available', amount: amount.negated(), reason: 'test_freeze' },
            { bucket: 'frozen', amount, reason: 'test_freeze' },
          ]);
          if (body.fail) throw new ApiError(500, 'internal_error', 'simulated crash after posting');
          return { statusCode: 201, body: { frozen: amount.toNumber(), walletId: wallet.id } };
        },
      );
      request.ledgerNote = {
        idempotencyKey: body.idempotencyKey,
        ...(result.replay ? { ledgerStatus: 'idempotent_replay' as const } : {}),
      };
      return reply.status(result.statusCode).send(result.body);
    },
  );
}
