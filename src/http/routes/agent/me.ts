import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SCOPES } from '../../../domain/api-keys.js';
import { agentErrors, Nullable, StringEnum } from '../../schemas.js';

const KeyIdentity = Type.Object({
  userId: Type.String(),
  keyId: Type.Integer(),
  agentName: Nullable(Type.String()),
  agentModel: Nullable(Type.String()),
  scopes: Type.Array(StringEnum(SCOPES)),
});

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
    async (request) => {
      const key = request.agentKey!;
      return {
        userId: key.userId,
        keyId: key.keyId,
        agentName: key.agentName,
        agentModel: key.agentModel,
        scopes: key.scopes,
      };
    },
  );
};
