import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { buildRunManifest, relatedEntitiesOf } from '../../../ledger/run-manifest.js';
import { outcomesOfEntities } from '../../../storage/trades-repo.js';
import { futuresExport } from '../../../services/futures/export.js';
import { countLedgerRows, listLedgerRows, type LedgerFilters, type LedgerRow } from '../../../storage/ledger-repo.js';
import type { AppContext } from '../../context.js';
import { agentErrors, DateTime } from '../../schemas.js';
import { LedgerExportResponse, LedgerListResponse } from '../../responses/ledger.js';

export const EXPORT_MAX_ROWS = 1000;

const Filters = {
  venue: Type.Optional(Type.String({ maxLength: 32 })),
  eventType: Type.Optional(Type.String({ maxLength: 32 })),
  runId: Type.Optional(Type.String({ maxLength: 200 })),
  decisionId: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.String({ maxLength: 32 })),
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
};

type FilterQuery = { [K in keyof typeof Filters]?: string };

function toFilters(q: FilterQuery): LedgerFilters {
  return {
    venue: q.venue,
    eventType: q.eventType,
    runId: q.runId,
    decisionId: q.decisionId,
    status: q.status,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
}

/** Ids of the futures positions `rows` name as their related entity. */
function referencedPositionIds(rows: readonly LedgerRow[]): number[] {
  const ids = rows.flatMap((r) => (r.relatedEntityType === 'futures_position' && /^\d+$/.test(r.relatedEntityId ?? '') ? [Number(r.relatedEntityId)] : []));
  return [...new Set(ids)];
}

export function toLedgerView(row: LedgerRow) {
  return {
    // Reference B8: an integer id (= X-Service-Ledger-Event-Id); the row's uuid stays beside it.
    id: row.seq,
    uuid: row.id,
    method: row.method,
    endpoint: row.endpoint,
    venue: row.venue,
    eventType: row.eventType,
    statusCode: row.statusCode,
    ledgerStatus: row.ledgerStatus,
    latencyMs: row.latencyMs,
    idempotencyKey: row.idempotencyKey,
    relatedEntityType: row.relatedEntityType,
    relatedEntityId: row.relatedEntityId,
    requestSummary: row.requestSummary ?? null,
    responseSummary: row.responseSummary ?? null,
    blockReasons: row.blockReasons,
    runId: row.runId,
    decisionId: row.decisionId,
    strategyLabel: row.strategyLabel,
    confidence: row.confidence,
    rationaleSummary: row.rationaleSummary,
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
  };
}

const ledgerRoute = { scope: 'read' as const, ledger: { eventType: 'read' as const } };

export function ledgerRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/agent/ledger',
      {
        config: ledgerRoute,
        schema: {
          summary: 'The calling key’s private action ledger, newest first',
          tags: ['agent'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          querystring: Type.Object({
            ...Filters,
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
          }),
          response: { 200: LedgerListResponse, ...agentErrors },
        },
      },
      async (request) => {
        // Rows are written in batches; make this process's pending rows visible first.
        await ctx.ledger.flush();
        const keyId = request.agentKey!.keyId;
        const { limit, offset, ...rest } = request.query;
        const filters = toFilters(rest);
        const [rows, total] = await Promise.all([
          listLedgerRows(ctx.database.db, keyId, filters, { limit, offset }),
          countLedgerRows(ctx.database.db, keyId, filters),
        ]);
        return {
          data: rows.map(toLedgerView),
          pagination: { limit, offset, hasMore: offset + rows.length < total, total },
          // Only the known filters are echoed (unknown query parameters are ignored, never reflected).
          filters: Object.fromEntries(Object.keys(Filters).flatMap((k) => (rest[k as keyof FilterQuery] === undefined ? [] : [[k, rest[k as keyof FilterQuery]]]))),
          asOf: new Date(ctx.clock.now()).toISOString(),
        };
      },
    );

    app.get(
      '/api/agent/ledger/export',
      {
        config: ledgerRoute,
        schema: {
          summary: 'Export up to 1,000 ledger rows with the futures positions they touched (the key’s newest when unfiltered) and, filtered by runId, a run evidence manifest',
          tags: ['agent'],
          security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
          querystring: Type.Object(Filters),
          response: {
            200: LedgerExportResponse,
            ...agentErrors,
          },
        },
      },
      async (request) => {
        await ctx.ledger.flush();
        const keyId = request.agentKey!.keyId;
        const filters = toFilters(request.query);
        const [rows, total] = await Promise.all([
          listLedgerRows(ctx.database.db, keyId, filters, { limit: EXPORT_MAX_ROWS, offset: 0 }),
          countLedgerRows(ctx.database.db, keyId, filters),
        ]);
        // A filtered export (one run, one venue…) carries the positions its rows touched, not every one the key holds.
        const filtered = Object.values(filters).some((v) => v !== undefined);
        const futures = await futuresExport(ctx.database.db, keyId, EXPORT_MAX_ROWS, filtered ? referencedPositionIds(rows) : undefined);
        const data = rows.map(toLedgerView);
        const outcomes = filters.runId ? await outcomesOfEntities(ctx.database.db, keyId, relatedEntitiesOf(data)) : [];
        const exportedAt = new Date(ctx.clock.now()).toISOString();
        return {
          apiKeyId: keyId,
          exportedAt,
          count: data.length,
          maxRows: EXPORT_MAX_ROWS,
          run: filters.runId
            ? buildRunManifest({ apiKeyId: keyId, runId: filters.runId, rows: data, total, maxRows: EXPORT_MAX_ROWS, generatedAt: exportedAt, outcomes })
            : null,
          data,
          futures: futures.futures,
          futuresEvents: futures.futuresEvents,
        };
      },
    );
  };
}
