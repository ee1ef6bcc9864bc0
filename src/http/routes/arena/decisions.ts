import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { handleFor, keyIdFromHandle } from '../../../domain/api-keys.js';
import { decodeCursor } from '../../../arena/dataset-cursor.js';
import { decisionArtifact, decisionsPage, sharedMarker } from '../../../services/arena-decisions.js';
import { findPublicAgent } from '../../../storage/arena-board-repo.js';
import { findPublicDecision } from '../../../storage/arena-decisions-repo.js';
import { houseKeyIds } from '../../../storage/house-repo.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest, notFound } from '../../errors.js';
import { CodedBody, sendCoded } from '../../content-coding.js';
import { StringEnum } from '../../schemas.js';
import { CACHE, publicErrors, tags } from './schemas.js';
import { DecisionArtifact, DecisionsResponse } from '../../responses/arena.js';

/** Serialized dataset pages are reused for at most this long (the route is cached 5 minutes by clients anyway). */
const PAGE_TTL_MS = 10_000;
const PAGE_CACHE_MAX = 2000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `GET /api/arena/decisions` (dataset) and `GET /api/arena/decisions/{decisionUuid}` (artifact). */
export function decisionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const pageCache = new Map<string, { at: number; marker: string; body: CodedBody; count: number; hasMore: boolean; nextCursor: string }>();
  return async (app) => {
    const db = ctx.database.db;

    app.get(
      '/api/arena/decisions',
      {
        config: { publicRate: true, conditional: true },
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
          response: {
            200: {
              description: 'a page of the dataset: the envelope as JSON, or with format=jsonl/ndjson one decision per line',
              headers: {
                'X-Total-Count': { type: 'integer', description: 'total matching resolved decisions (the envelope\'s count; opportunities are not counted)' },
                'X-Has-More': { type: 'boolean', description: 'whether another page follows' },
                'X-Next-Cursor': { type: 'string', description: 'the cursor of the next page; empty on the last page' },
              },
              content: {
                'application/json': { schema: DecisionsResponse },
                'application/x-ndjson': { schema: Type.String({ description: 'one decision record (DecisionRecord) per line; decisions only (includeOpportunities does not apply)' }) },
              },
            },
            ...publicErrors,
          },
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
        // A page is serialized once and served from memory while no decision was written or
        // settled (the marker) and for at most PAGE_TTL_MS.
        const nowMs = ctx.clock.now();
        const marker = matchesNothing ? '' : await sharedMarker(db);
        const pageKey = `${lines}|${q.cursor ?? ''}|${q.limit}|${keyId}|${matchesNothing}|${q.includeOpportunities}|${q.status ?? ''}`;
        let page = pageCache.get(pageKey);
        if (!page || page.marker !== marker || nowMs - page.at >= PAGE_TTL_MS || nowMs < page.at) {
          const built = await decisionsPage(db, {
            nowMs,
            limit: q.limit,
            cursor,
            cursorText: q.cursor || null,
            keyId,
            matchesNothing,
            // contract §4.2 rule 3: the jsonl stream covers decisions only (its cursor pages them alone)
            includeOpportunities: q.includeOpportunities && !lines,
            status: q.status,
          });
          const { pagination } = built.envelope;
          const body = lines ? built.rows.map((row) => `${JSON.stringify(built.record(row))}\n`).join('') : JSON.stringify(built.envelope);
          const bytes = Buffer.from(body);
          // X-Total-Count: total matching resolved decisions (contract §4.2 rule 3), the envelope's count.
          page = { at: nowMs, marker, body: CodedBody.of(bytes), count: built.envelope.count, hasMore: pagination.hasMore, nextCursor: pagination.nextCursor ?? '' };
          if (pageCache.size >= PAGE_CACHE_MAX) pageCache.clear();
          pageCache.set(pageKey, page);
        }
        reply.header('cache-control', CACHE.decisions);
        reply.header('x-total-count', String(page.count));
        reply.header('x-has-more', String(page.hasMore));
        reply.header('x-next-cursor', page.nextCursor);
        // Compressed once per page when the client accepts it: dataset pages are large and fetched whole.
        return sendCoded(reply, page.body, lines ? 'application/x-ndjson' : 'application/json; charset=utf-8') as never;
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
          response: { 200: DecisionArtifact, ...publicErrors },
        },
      },
      async (request, reply) => {
        const { decisionUuid } = request.params;
        const row = UUID.test(decisionUuid) ? await findPublicDecision(db, decisionUuid) : null;
        if (!row) throw notFound('decision_not_found', `no public decision ${decisionUuid}`);
        reply.header('cache-control', CACHE.decisions);
        return decisionArtifact(row) as Static<typeof DecisionArtifact>;
      },
    );
  };
}
