import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ping } from '../../storage/db.js';
import type { AppContext } from '../context.js';
import { Type } from 'typebox';
import { ErrorBody } from '../schemas.js';
import { ReadyResponse } from '../responses/admin.js';

export function systemRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/healthz', { schema: { summary: 'Liveness: the process answers', tags: ['system'], response: { 200: { description: 'ok', content: { 'text/plain': { schema: Type.String() } } } } } }, async (_request, reply) =>
      reply.type('text/plain').send('ok'),
    );

    app.get('/readyz', { schema: { summary: 'Readiness: the database answers', tags: ['system'], response: { 200: ReadyResponse, 503: ErrorBody } } }, async (request, reply) => {
      try {
        await ping(ctx.database.db);
        return reply.send({ status: 'ready', database: ctx.database.kind });
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.status(503).send({ error: 'not_ready', message: 'the database does not answer' });
      }
    });

    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  };
}
