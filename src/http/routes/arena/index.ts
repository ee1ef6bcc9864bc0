import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ArenaBoards, boardOptions } from '../../../services/arena-board.js';
import type { AppContext } from '../../context.js';
import { adminCompetitionRoutes } from './admin-competitions.js';
import { competitionRoutes } from './competitions.js';
import { decisionRoutes } from './decisions.js';
import { leaderboardRoutes } from './leaderboard.js';
import { scorecardRoutes } from './scorecards.js';

/** Every public Arena and competition read, plus the owners' competition admin routes. */
export function arenaRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const boards = new ArenaBoards(ctx.database.db, ctx.clock, boardOptions(ctx));
    await app.register(leaderboardRoutes(ctx, boards));
    await app.register(competitionRoutes(ctx));
    await app.register(decisionRoutes(ctx));
    await app.register(scorecardRoutes(ctx));
    await app.register(adminCompetitionRoutes(ctx));
  };
}
