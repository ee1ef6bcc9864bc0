import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { handleFor, keyIdFromHandle } from '../../../domain/api-keys.js';
import { decodeCursor } from '../../../arena/dataset-cursor.js';
import { decisionArtifact, decisionsPage } from '../../../services/arena-decisions.js';
import { findPublicAgent } from '../../../storage/arena-board-repo.js';
import { findPublicDecision } from '../../../storage/arena-decisions-repo.js';
import { houseKeyIds } from '../../../storage/house-repo.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest, notFound } from '../../errors.js';
import { StringEnum } from '../../schemas.js';
import { CACHE, OpenResponse, publicErrors, tags } from './schemas.js';

const LINES_PER_CHUNK = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `GET /api/arena/decisions` (dataset) and `GET /api/arena/decisions/{decisionUuid}` (artifact). */
export function decisionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = ctx.database.db;

    app.get(
      '/api/arena/decisions',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Decisions dataset: resolved paper PM decisions of public agents',
          tags,
          querystring: Type.Object({
            format: StringEnum(['json', 'jsonl', 'ndjson'] as const, { default: 'json' }),
            includeOpportunities: Type.Boolean({ default: false }),
            limit: Type.Integer({ minimum: 1, maximum: 250, default: 50 }),
            cursor: Type.Optional(Type.String({ maxLength: 400 })),
            agent: Type.Optional(Type.String({ maxLength: 64, description: 'public handle a{keyId}-{slug}' })),
            status: StringEnum(['settled', 'open'] as const, {
              default: 'settled',
              description: 'open: the unsettled decisions of a house agent named by `agent` (else 400 status_open_requires_house_agent)',
            }),
          }),
          response: { 200: OpenResponse('decisions envelope (json) or one decision per line (jsonl/ndjson)'), ...publicErrors },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const cursor = q.cursor === undefined || q.cursor === '' ? { d: 0, o: 0 } : decodeCursor(q.cursor);
        if (!cursor) throw invalidRequest('query.cursor', 'cursor is not one this dataset issued; use pagination.nextCursor');
        let keyId: number | null = null;
        let matchesNothing = false;
        if (q.agent !== undefined) {
          keyId = keyIdFromHandle(q.agent);
          if (keyId === null) throw invalidRequest('query.agent', 'agent must be a public handle like a12-my-agent');
          const agent = await findPublicAgent(db, keyId);
          matchesNothing = !agent || handleFor(agent.keyId, agent.agentName) !== q.agent;
        }
        if (q.status === 'open' && (keyId === null || matchesNothing || !(await houseKeyIds(db)).has(keyId))) {
          throw new ApiError(400, 'status_open_requires_house_agent', 'status=open serves only a house agent named by agent (its public handle)');
        }
        const lines = q.format !== 'json';
        const page = await decisionsPage(db, {
          nowMs: ctx.clock.now(),
          limit: q.limit,
          cursor,
          cursorText: q.cursor || null,
          keyId,
          matchesNothing,
          includeOpportunities: q.includeOpportunities && !lines,
          status: q.status,
        });
        const { pagination } = page.envelope;
        reply.header('cache-control', CACHE.decisions);
        reply.header('x-total-count', String(page.envelope.count));
        reply.header('x-has-more', String(pagination.hasMore));
        reply.header('x-next-cursor', pagination.nextCursor ?? '');
        if (!lines) return page.envelope;
        // One decision per line, serialized as the stream is read (in chunks of lines, not one write per row).
        const rows = page.rows;
        const stream = Readable.from(
          (function* () {
            for (let i = 0; i < rows.length; i += LINES_PER_CHUNK) {
              yield rows.slice(i, i + LINES_PER_CHUNK).map((row) => `${JSON.stringify(page.record(row))}\n`).join('');
            }
          })(),
        );
        return reply.type('application/x-ndjson').send(stream);
      },
    );

    app.get(
      '/api/arena/decisions/:decisionUuid',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Decision artifact with its content hash and the ordered fields it covers',
          tags,
          params: Type.Object({ decisionUuid: Type.String({ maxLength: 100 }) }),
          response: { 200: OpenResponse('decision artifact'), ...publicErrors },
        },
      },
      async (request, reply) => {
        const { decisionUuid } = request.params;
        const row = UUID.test(decisionUuid) ? await findPublicDecision(db, decisionUuid) : null;
        if (!row) throw notFound('decision_not_found', `no public decision ${decisionUuid}`);
        reply.header('cache-control', CACHE.decisions);
        return decisionArtifact(row);
      },
    );
  };
}
