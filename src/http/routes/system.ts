import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readinessProbe } from '../../services/readiness.js';
import type { AppContext } from '../context.js';
import { Type } from 'typebox';
import { ErrorBody } from '../schemas.js';
import { NotReadyResponse, ReadyResponse } from '../responses/admin.js';

/** Who provides what /readyz waits for (an api alone waited on "pm_lists" with no word that only a worker stores them). */
function notReadyHint(waitingFor: string[]): string {
  const hints = [
    ...(waitingFor.includes('market_prices') ? ['no price from the market source yet (live mode: is it reachable?)'] : []),
    ...(waitingFor.some((w) => w.startsWith('pm_')) ? ['prediction markets are stored by the pm-ingest job of a worker or serve process'] : []),
    ...(waitingFor.includes('database_writes') ? ['the database refuses writes — a full disk or a read-only volume? trades answer 503 until a write lands again'] : []),
  ];
  return hints.length > 0 ? ` (${hints.join('; ')})` : '';
}

export function systemRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // while the ledger's writes are refused, each probe tries the pending rows once: a process that
    // gets no traffic while not ready would otherwise wait out the writer's back-off to find out
    const writesRefused = async () => ctx.ledger.refusingWrites && (await ctx.ledger.flush(), ctx.ledger.refusingWrites);
    const readiness = readinessProbe({ database: ctx.database, clock: ctx.clock, marketReads: ctx.marketReads, writesRefused });
    app.get('/healthz', { schema: { summary: 'Liveness: the process answers', tags: ['system'], response: { 200: { description: 'ok', content: { 'text/plain': { schema: Type.String() } } } } } }, async (_request, reply) =>
      reply.type('text/plain').send('ok'),
    );

    app.get(
      '/readyz',
      { schema: { summary: 'Readiness: the database answers and market data, PM lists and native price history are served', tags: ['system'], response: { 200: ReadyResponse, 503: NotReadyResponse } } },
      async (request, reply) => {
        try {
          const { ready, waitingFor } = await readiness();
          if (ready) return reply.send({ status: 'ready', database: ctx.database.kind });
          const what = waitingFor.includes('database_writes') ? 'waiting for' : 'still loading:';
          return reply.status(503).send({ error: 'not_ready', message: `${what} ${waitingFor.join(', ')}${notReadyHint(waitingFor)}`, waitingFor });
        } catch (error) {
          request.log.warn({ err: error }, 'readiness check failed');
          return reply.status(503).send({ error: 'not_ready', message: 'the database does not answer' });
        }
      },
    );

    // ~680 KB: serialized once (the document is fixed while the process runs) and, like any
    // keyless read, counted against the caller's PUBLIC_RPM (MCP serves it as a resource too)
    let openApiText: string | null = null;
    app.get('/openapi.json', { config: { publicRate: true }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send((openApiText ??= JSON.stringify(app.swagger()))),
    );
  };
}
