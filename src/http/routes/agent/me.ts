import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SCOPES } from '../../../domain/api-keys.js';
import { agentErrors, Nullable, StringEnum } from '../../schemas.js';
import type { AuthedKey } from '../../context.js';
import { sendJsonText } from '../../hot-responses.js';
import { sanitize } from '../../../ledger/summaries.js';

const KeyIdentity = Type.Object({
  userId: Type.String(),
  keyId: Type.Integer(),
  agentName: Nullable(Type.String()),
  agentModel: Nullable(Type.String()),
  scopes: Type.Array(StringEnum(SCOPES)),
});

/** Answers per authenticated key object: the key cache hands out the same object until the key changes. */
const answers = new WeakMap<AuthedKey, { body: object; summary: unknown; bytes: Buffer }>();

export const meRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/agent/me',
    {
      config: { scope: 'any', ledger: { eventType: 'read' } },
      schema: {
        summary: 'Identity of the calling key',
        tags: ['agent'],
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        response: { 200: KeyIdentity, ...agentErrors },
      },
    },
    async (request, reply) => {
      const key = request.agentKey!;
      let answer = answers.get(key);
      if (!answer) {
        const body = { userId: key.userId, keyId: key.keyId, agentName: key.agentName, agentModel: key.agentModel, scopes: key.scopes };
        // The route's own serializer, once per cached key: the bytes it would write every time.
        answer = { body, summary: sanitize(body), bytes: Buffer.from(reply.serialize(body) as string) };
        answers.set(key, answer);
      }
      request.ledgerResponse = answer.body;
      request.ledgerSummary = answer.summary;
      return sendJsonText(reply, answer.bytes);
    },
  );
};
