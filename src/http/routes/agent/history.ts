import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditStatsOf } from '../../../domain/audit-stats.js';
import { Decimal, toWire } from '../../../domain/money.js';
import { readValuedBook } from '../../../services/equity.js';
import { performanceRead, realizedPointsPart, tradesPart, type RealizedPoint, type TradeRow, type VenueStatsRow } from '../../../storage/account-repo.js';
import { readBook, snapshotsPart } from '../../../storage/book-read-repo.js';
import type { AppContext } from '../../context.js';
import { agentErrors, DateTime, StringEnum } from '../../schemas.js';
import { deltaPollingAsOf, pollingAsOf } from '../../../domain/delta-polling.js';
import { EquityCurveResponse, PerformanceResponse, TradesResponse } from '../../responses/account.js';

const security: { [label: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const readRoute = { scope: 'read' as const, ledger: { eventType: 'read' as const } };
const DAY_MS = 86_400_000;
export const REALIZED_POINTS_CAP = 1000;
const VENUES = ['spot', 'futures', 'pm'] as const;

function venueRecord(rows: VenueStatsRow[]) {
  const sum = (f: (r: VenueStatsRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  const realized = rows.reduce((a, r) => a.plus(r.realizedPnl), new Decimal(0));
  const winCount = sum((r) => r.winCount);
  const lossCount = sum((r) => r.lossCount);
  return {
    realizedPnlMusd: toWire(realized),
    tradeCount: sum((r) => r.tradeCount),
    winCount,
    lossCount,
    neutralCount: sum((r) => r.neutralCount),
    winRate: winCount + lossCount === 0 ? null : toWire(new Decimal(winCount).div(winCount + lossCount)),
  };
}

export function historyRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/agent/trades',
      {
        config: readRoute,
        schema: {
          summary: 'Trade log of every venue (fills, closes, settlements), most recent first',
          tags: ['agent'],
          security,
          querystring: Type.Object({
            venue: StringEnum(['all', 'spot', 'futures', 'pm'] as const, { default: 'all' }),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
            updatedSince: Type.Optional(DateTime),
          }),
          response: { 200: TradesResponse, ...agentErrors },
        },
      },
      async (request) => {
        const { venue, limit, updatedSince } = request.query;
        const keyId = request.agentKey!.keyId;
        const nowMs = ctx.clock.now();
        // One round trip; a key without a book has no trades.
        const book = await readBook(ctx.database.db, keyId, { trades: tradesPart({ venue, limit, updatedSince: updatedSince ? new Date(updatedSince) : undefined }) });
        const rows = (book?.parts.trades ?? []) as TradeRow[];
        return {
          walletId: book?.wallet.id ?? null,
          venue,
          count: rows.length,
          updatedSince: updatedSince ? new Date(updatedSince).toISOString() : null,
          asOf: updatedSince ? deltaPollingAsOf(nowMs, rows.map((r) => Date.parse(r.closedAt))) : pollingAsOf(nowMs),
          trades: rows.map((r) => ({
            venue: r.venue,
            id: Number(r.id),
            closedAt: new Date(r.closedAt).toISOString(),
            side: r.side,
            realizedPnlMusd: r.realizedPnl === null ? null : toWire(r.realizedPnl),
            coinId: r.coinId,
            symbol: r.symbol,
            market: r.market,
            outcome: r.outcome,
            detail: r.detail,
          })),
        };
      },
    );

    app.get(
      '/api/agent/equity-curve',
      {
        config: readRoute,
        schema: {
          summary: 'Daily equity points, or one point per realization with the cumulative realized PnL',
          tags: ['agent'],
          security,
          querystring: Type.Object({
            days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }),
            granularity: StringEnum(['daily', 'realized'] as const, { default: 'daily' }),
          }),
          response: { 200: EquityCurveResponse, ...agentErrors },
        },
      },
      async (request) => {
        const { days, granularity } = request.query;
        const keyId = request.agentKey!.keyId;
        const db = ctx.database.db;
        const nowMs = ctx.clock.now();
        const from = new Date(nowMs - days * DAY_MS);
        const base = (walletId: number | null) => ({ walletId, window: { days, from: from.toISOString() }, granularity });
        if (granularity === 'realized') {
          const book = await readBook(db, keyId, { points: realizedPointsPart(from, REALIZED_POINTS_CAP) });
          const points = (book?.parts.points ?? []) as RealizedPoint[];
          return {
            ...base(book?.wallet.id ?? null),
            points: points.map((p) => ({
              t: new Date(p.t).toISOString(),
              venue: p.venue,
              realizedPnlMusd: toWire(p.realizedPnl),
              cumulativeRealizedPnlMusd: toWire(p.cumulative),
              tradeId: Number(p.id),
            })),
          };
        }
        // One round trip: the snapshots and the book valued at mark for today's live point.
        const book = await readValuedBook(db, ctx.market, keyId, { snapshots: snapshotsPart(from.toISOString().slice(0, 10)) });
        if (!book) return { ...base(null), points: [] };
        const snapshots = book.parts.snapshots as { day: string; usdValue: string }[];
        const points = snapshots.map((s) => ({ date: s.day, usdValue: toWire(s.usdValue) }));
        // Today's point is the live equity (the snapshot job writes the day's value as it goes).
        const today = new Date(nowMs).toISOString().slice(0, 10);
        const todayPoint = { date: today, usdValue: toWire(book.equity.totalUsd) };
        if (points.at(-1)?.date === today) points[points.length - 1] = todayPoint;
        else points.push(todayPoint);
        return { ...base(book.wallet.id), points };
      },
    );

    app.get(
      '/api/agent/performance',
      {
        config: readRoute,
        schema: {
          summary: 'Realized performance of the calling key (totals and by venue), evaluation and audit stats',
          tags: ['agent'],
          security,
          response: { 200: PerformanceResponse, ...agentErrors },
        },
      },
      async (request) => {
        const keyId = request.agentKey!.keyId;
        const db = ctx.database.db;
        // Ledger rows are written in batches; count this process's pending rows too.
        await ctx.ledger.flush();
        const { totals: t, audit } = await performanceRead(db, keyId);
        const stats = t.venues;
        const dd = t;
        const totals = venueRecord(stats);
        const grossWin = stats.reduce((a, r) => a.plus(r.grossWin), new Decimal(0));
        const grossLoss = stats.reduce((a, r) => a.plus(r.grossLoss), new Decimal(0));
        return {
          apiKeyId: keyId,
          totals,
          byVenue: Object.fromEntries(VENUES.map((v) => [v, venueRecord(stats.filter((r) => r.venue === v))])) as Record<(typeof VENUES)[number], ReturnType<typeof venueRecord>>,
          evaluation: {
            maxDrawdownMusd: toWire(dd.maxDrawdown),
            profitFactor: grossLoss.isZero() ? null : toWire(grossWin.div(grossLoss)),
            averageWinMusd: totals.winCount === 0 ? null : toWire(grossWin.div(totals.winCount)),
            averageLossMusd: totals.lossCount === 0 ? null : toWire(grossLoss.negated().div(totals.lossCount)),
            activeDays: dd.activeDays,
          },
          auditStats: auditStatsOf(audit),
          asOf: new Date(ctx.clock.now()).toISOString(),
        };
      },
    );
  };
}
