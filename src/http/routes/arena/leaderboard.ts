import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { keyIdFromHandle } from '../../../domain/api-keys.js';
import { BOARD_WINDOWS, DEFAULT_WINDOW } from '../../../arena/windows.js';
import { ArenaBoards, boardOptions } from '../../../services/arena-board.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { answerNotModified, jsonBytes, sendJsonText, VersionedCache, weakEtag } from '../../hot-responses.js';
import { isoAt } from '../../../util/iso-time.js';
import { StringEnum } from '../../schemas.js';
import { CACHE, HandleParam, publicErrors, tags } from './schemas.js';
import { LeaderboardResponse, ProfileResponse } from '../../responses/arena.js';

/** `GET /api/arena` and `GET /api/arena/{handle}` (contract §4.2). */
export function leaderboardRoutes(ctx: AppContext, boards = new ArenaBoards(ctx.database.db, ctx.clock, boardOptions(ctx))): FastifyPluginAsyncTypebox {
  const heads = new VersionedCache<Buffer>(500);
  const answers = new VersionedCache<Buffer>(500);
  return async (app) => {
    app.get(
      '/api/arena',
      {
        config: { publicRate: true, conditional: true },
        schema: {
          summary: 'Arena leaderboard (arena-ranking-v1)',
          tags,
          querystring: Type.Object({
            page: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
            pageSize: Type.Integer({ minimum: 1, maximum: 50, default: 12 }),
            window: StringEnum(BOARD_WINDOWS, { default: DEFAULT_WINDOW }),
          }),
          response: { 200: LeaderboardResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const { page, pageSize, window } = request.query;
        reply.header('cache-control', CACHE.leaderboard);
        // Serialized once per board state, page and minute; only asOf is per request.
        const cached = await boards.leaderboardText(window, page, pageSize);
        if (answerNotModified(request, reply, weakEtag('arena', cached.tag))) return reply;
        // The page's bytes are made once; requests of the same millisecond share the whole answer.
        const head = heads.get(cached.tag, cached.head, () => Buffer.from(cached.head));
        const now = ctx.clock.now();
        return sendJsonText(reply, answers.get(cached.tag, now, () => jsonBytes(head, `,"asOf":${JSON.stringify(isoAt(now))}}`)));
      },
    );

    app.get(
      '/api/arena/:handle',
      {
        config: { publicRate: true },
        schema: {
          summary: 'Arena agent profile',
          tags,
          params: HandleParam,
          response: { 200: ProfileResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const { handle } = request.params;
        const keyId = keyIdFromHandle(handle);
        const profile = keyId === null ? null : await boards.profile(keyId, handle);
        if (!profile) throw notFound('agent_not_found', `no public agent ${handle}`);
        reply.header('cache-control', CACHE.leaderboard);
        return profile as Static<typeof ProfileResponse>;
      },
    );
  };
}
