import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readMark } from '../../../services/futures/mark.js';
import { positionView } from '../../../services/futures/view.js';
import { readBook } from '../../../storage/book-read-repo.js';
import { POSITIONS_LIST_MAX, positionsPart, toPositionRows } from '../../../storage/futures-repo.js';
import type { AppContext } from '../../context.js';
import { agentErrors, DateTime, Nullable } from '../../schemas.js';
import { FuturesPositionSchema } from './futures-schemas.js';
import { deltaPollingAsOf, pollingAsOf } from '../../../domain/delta-polling.js';

export function positionsFuturesRoute(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/agent/positions/futures',
      {
        config: { scope: 'read', ledger: { eventType: 'read', venue: 'futures' } },
        schema: {
          summary: `The key's futures positions, open and historical (up to ${POSITIONS_LIST_MAX}; open first)`,
          description:
            'Open rows carry a live mark (markPrice, unrealizedPnlMusd, liquidationDistancePct, atLiquidation; null without a fresh mark). ' +
            'With updatedSince, only rows opened, changed, closed or liquidated at or after it; use the response asOf as the next updatedSince (at most the server clock − 5 s, so rows may repeat: de-duplicate by id); more than 200 changes are read over several polls, oldest first.',
          tags: ['agent', 'futures'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          querystring: Type.Object({ updatedSince: Type.Optional(DateTime) }),
          response: {
            200: Type.Object({ positions: Type.Array(FuturesPositionSchema), updatedSince: Nullable(DateTime), asOf: DateTime }),
            ...agentErrors,
          },
        },
      },
      async (request) => {
        const nowMs = ctx.clock.now();
        const since = request.query.updatedSince ? new Date(request.query.updatedSince) : null;
        // a book part: one round trip, or none from the book cache (a key without a book has no positions)
        const book = await readBook(ctx.database.db, request.agentKey!.keyId, { positions: positionsPart(since) });
        const rows = book ? toPositionRows(book.parts.positions) : [];
        const marks = new Map<string, ReturnType<typeof readMark>>();
        const positions = rows.map((row) => {
          if (row.status !== 'open') return positionView(row);
          const read = marks.get(row.coinId) ?? readMark(ctx.market, row.coinId, nowMs);
          marks.set(row.coinId, read);
          return positionView(row, read.problem ? null : read.mark);
        });
        const asOf = since ? deltaPollingAsOf(nowMs, rows.map((r) => r.updatedAt.getTime())) : pollingAsOf(nowMs);
        return { positions, updatedSince: since ? since.toISOString() : null, asOf };
      },
    );
  };
}
