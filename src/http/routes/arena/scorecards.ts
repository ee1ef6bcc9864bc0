import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { handleFor, keyIdFromHandle } from '../../../domain/api-keys.js';
import { compactRun, fullRun, liveScorecard } from '../../../services/arena-scorecards.js';
import { findPublicAgent } from '../../../storage/arena-board-repo.js';
import { findPublicRun, listRunsOf } from '../../../storage/arena-scorecards-repo.js';
import type { AppContext } from '../../context.js';
import { invalidRequest, notFound } from '../../errors.js';
import { CACHE, HandleParam, publicErrors, tags } from './schemas.js';
import { ScorecardResponse, ScorecardRunResponse, ScorecardRunsResponse } from '../../responses/arena.js';

const RUNS_DEFAULT = 25;
const RUNS_MAX = 100;

/** Scorecards, their runs list and single runs (contract §4.2 rule 5). */
export function scorecardRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = ctx.database.db;

    /** 400 for a malformed handle; 404 unless it names a public, unrevoked agent. */
    const publicAgent = async (handle: string) => {
      const keyId = keyIdFromHandle(handle);
      if (keyId === null) throw invalidRequest('params.handle', 'handle must look like a12-my-agent');
      const agent = await findPublicAgent(db, keyId);
      if (!agent || handleFor(agent.keyId, agent.agentName) !== handle) throw notFound('agent_not_found', `no public agent ${handle}`);
      return agent;
    };

    app.get(
      '/api/arena/agents/:handle/scorecard',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Agent scorecard: Track A (market-entry baseline) and Track B (own forecast skill)',
          tags,
          params: HandleParam,
          response: { 200: ScorecardResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const agent = await publicAgent(request.params.handle);
        const { response } = await liveScorecard(db, agent.keyId);
        reply.header('cache-control', CACHE.scorecard);
        return { handle: request.params.handle, ...response };
      },
    );

    app.get(
      '/api/arena/agents/:handle/scorecard/runs',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Frozen scorecard runs of an agent, newest first',
          tags,
          params: HandleParam,
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ description: '1..100, default 25; out-of-range values are clamped' })),
            before: Type.Optional(Type.Integer({ minimum: 1, description: 'runs with id strictly less' })),
          }),
          response: { 200: ScorecardRunsResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const agent = await publicAgent(request.params.handle);
        const limit = Math.min(RUNS_MAX, Math.max(1, request.query.limit ?? RUNS_DEFAULT));
        const rows = await listRunsOf(db, agent.keyId, request.query.before ?? null, limit);
        const page = rows.slice(0, limit);
        reply.header('cache-control', CACHE.scorecard);
        return {
          handle: request.params.handle,
          runs: page.map(compactRun),
          nextBefore: rows.length > limit ? page.at(-1)!.id : null,
          limit,
        };
      },
    );

    app.get(
      '/api/arena/scorecard-runs/:id',
      {
        config: { publicRate: true },
        schema: {
          summary: 'One frozen scorecard run (immutable)',
          tags,
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          response: { 200: ScorecardRunResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const run = await findPublicRun(db, request.params.id);
        if (!run) throw notFound('run_not_found', `no public scorecard run ${request.params.id}`);
        reply.header('cache-control', CACHE.run);
        // Stored records (jsonb) and cached rows are loosely typed; the response check holds them to the schema.
        return fullRun(run) as Static<typeof ScorecardRunResponse>;
      },
    );
  };
}
