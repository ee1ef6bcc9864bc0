import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { competitionBoard, listCompetitions } from '../../../services/competitions.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { CACHE, publicErrors } from './schemas.js';
import { CompetitionBoardResponse, CompetitionsResponse } from '../../responses/arena.js';

const tags = ['competitions'];

/** Public competition reads (contract §4.2 rule 6). */
export function competitionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = ctx.database.db;
    app.get(
      '/api/competitions',
      {
        config: { publicRate: true },
        schema: { summary: 'Featured and public competitions', tags, response: { 200: CompetitionsResponse, 429: publicErrors[429] } },
      },
      async (_request, reply) => {
        reply.header('cache-control', CACHE.competitions);
        return listCompetitions(db, ctx.clock.now());
      },
    );

    app.get(
      '/api/competitions/:slug',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Competition board (unlisted ones are readable by slug)',
          tags,
          params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) }),
          response: { 200: CompetitionBoardResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const board = await competitionBoard(db, request.params.slug, ctx.clock.now());
        if (!board) throw notFound('competition_not_found', `no competition ${request.params.slug}`);
        reply.header('cache-control', CACHE.competitions);
        return board;
      },
    );
  };
}
