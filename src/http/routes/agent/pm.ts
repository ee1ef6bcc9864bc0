/** Mock PM trading routes (supplement 1.8–1.11, 2.5): discover, quote, open, positions, opportunity. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { buildObservation } from '../../../domain/observation.js';
import { PM_MIN_STAKE_MUSD } from '../../../domain/pm/pricing.js';
import {
  loadMarketOr404,
  openPmPosition,
  pmPositionView,
  pricePm,
  quoteBody,
  recordRefusedOpen,
  refusalKind,
  type PmOpenInput,
} from '../../../services/pm-trading.js';
import { discoverPm, DISCOVER_SORTS } from '../../../services/pm-trading-discover.js';
import { recordOpportunity } from '../../../services/pm-trading-opportunity.js';
import { readVenueMarket, registerAgentsTradingMarket, type VenueMarketRead } from '../../../pm/api.js';
import { agentsHoldingMarket } from '../../../services/pm-trading-holders.js';
import { listPmPositions, PM_POSITIONS_LIST_MAX } from '../../../storage/pm-positions-repo.js';
import type { AppContext } from '../../context.js';
import { ApiError, invalidRequest } from '../../errors.js';
import { agentErrors, AgentTrace, DateTime, ErrorBody, FreeText, IdempotencyKey, Nullable, StrictBody, StringEnum } from '../../schemas.js';
import { OpportunityReceipt, PmDiscoverResponse, PmPositionEnvelope, PmPositionsResponse, PmQuoteResponse } from '../../responses/pm-trading.js';
import { deltaPollingAsOf, pollingAsOf } from '../../../domain/delta-polling.js';

export const PM_QUOTE_URL = '/api/agent/pm/quote';
export const PM_OPEN_URL = '/api/agent/pm/open';
const security: { [k: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const Hex64 = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });

const Provenance = Type.Object(
  {
    runtimeKind: Type.Optional(Nullable(StringEnum(['hosted_scheduler', 'self_host_runner', 'byo_api', 'mcp_tool'] as const))),
    packageVersion: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
    bundleId: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
    bundleVersion: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
    skillVersions: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 120 }), Type.String({ maxLength: 40 }), { maxProperties: 50 }))),
    promptHash: Type.Optional(Nullable(Hex64)),
    configHash: Type.Optional(Nullable(Hex64)),
    modelProvider: Type.Optional(Nullable(Type.String({ maxLength: 80 }))),
    modelName: Type.Optional(Nullable(Type.String({ maxLength: 80 }))),
    evidenceRef: Type.Optional(
      Nullable(
        Type.Object(
          { snapshotIds: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })), sourceCapturedAt: Type.Optional(Nullable(DateTime)) },
          { additionalProperties: false },
        ),
      ),
    ),
    // Server-stamped keys a caller may echo; ignored.
    executionPolicyVersion: Type.Optional(Type.Unknown()),
    evaluationPolicyVersion: Type.Optional(Type.Unknown()),
    providerVerified: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, description: 'DecisionProvenanceReport: self-reported, hashes only (never raw prompts)' },
);

const Market = {
  source: Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9_-]+$' }),
  slug: Type.String({ minLength: 1, maxLength: 300, pattern: '^[a-z0-9._-]+$' }),
  outcomeExternalMarketId: Type.String({ minLength: 1, maxLength: 300 }),
  side: Type.Optional(StringEnum(['yes', 'no'] as const, { default: 'yes' })),
  stakeMusd: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
  forecastProbability: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 100 })),
  minEntryProbabilityPct: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  agentTrace: Type.Optional(AgentTrace),
};

export function pmTradingRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Event detail lists the public agents holding a market.
    registerAgentsTradingMarket(agentsHoldingMarket);
    app.post(
      PM_QUOTE_URL,
      {
        config: { scope: 'read', ledger: { eventType: 'quote', venue: 'pm' } },
        schema: {
          summary: 'Price a mock PM entry (read-only)',
          description: 'Fill at the ask (mid + half the spread) plus size/liquidity slippage and a price-dependent fee, folded into sharesMusd; entryProbability stays the mid.',
          tags: ['agent', 'pm'],
          security,
          body: StrictBody({ ...Market, bankrollMusd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })) }),
          response: { 200: PmQuoteResponse, 404: ErrorBody, ...agentErrors },
        },
      },
      async (request) => {
        const body = request.body;
        const nowMs = ctx.clock.now();
        const market = await loadMarketOr404(ctx.database, ctx.clock, body.source, body.slug);
        const p = pricePm(market, body, nowMs);
        const quote = quoteBody(p, body, ctx.config.pmOpenEnabled);
        const { agentTrace: _t, ...inputs } = body;
        return {
          ...quote,
          observation: buildObservation({
            endpoint: `POST ${PM_QUOTE_URL}`,
            source: ctx.config.marketData?.kind === 'live' ? 'live:pm' : 'sim',
            observedAtMs: nowMs,
            sourceAsOfMs: market.lastCaptureAt ? Date.parse(market.lastCaptureAt) : null,
            freshness: market.freshness,
            inputs,
            dataset: { table: 'pm_markets', source: market.source, slug: market.slug },
            rowCount: 1,
          }),
        } as Static<typeof PmQuoteResponse>;
      },
    );

    app.post(
      PM_OPEN_URL,
      {
        config: { scope: 'trade:pm', tradeWrite: true, ledger: { eventType: 'write', venue: 'pm' } },
        schema: {
          summary: 'Open a mock PM position (idempotent)',
          description:
            '201 opened; 200 idempotent replay; 409 key reused for another request; 422 mock_entry_blocked with blockReasons ' +
            '(the quote is re-checked inside the transaction, floor first); 400 for a stakeMusd below 10 (quotes take any stake > 0); ' +
            '403 feature_disabled when PM_OPEN_ENABLED=false; 503 contention_retry: retry with the same idempotencyKey. ' +
            'Every open records an `opened` decision; refusals record validation_failed / risk_rejected / quote_expired / execution_rejected.',
          tags: ['agent', 'pm'],
          security,
          body: StrictBody({
            ...Market,
            idempotencyKey: IdempotencyKey,
            thesis: Type.Optional(FreeText({ maxLength: 280 })),
            provenance: Type.Optional(Provenance),
          }),
          response: { 200: PmPositionEnvelope, 201: PmPositionEnvelope, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, ...agentErrors, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        if (!ctx.config.pmOpenEnabled) throw new ApiError(403, 'feature_disabled', 'PM mock trading is not enabled');
        const key = request.agentKey!;
        const body = request.body;
        request.ledgerNote = { idempotencyKey: body.idempotencyKey };
        const input: PmOpenInput = {
          ...body,
          keyId: key.keyId,
          runId: body.agentTrace?.runId ?? null,
          decisionId: body.agentTrace?.decisionId ?? null,
          provenance: body.provenance as Record<string, unknown> | undefined,
        };
        try {
          if (body.stakeMusd < PM_MIN_STAKE_MUSD) throw invalidRequest('body.stakeMusd', `stakeMusd must be at least ${PM_MIN_STAKE_MUSD}`);
          const result = await openPmPosition(ctx.database, ctx.clock, input, key, {
            idempotencyKey: body.idempotencyKey,
            route: `POST ${PM_OPEN_URL}`,
            // the schema fills the default side in: {side: "yes"} and no side are the same request
            body: body as Record<string, unknown>,
          });
          const position = result.body.position as { id: number };
          request.ledgerNote = {
            idempotencyKey: body.idempotencyKey,
            relatedEntityType: 'pm_position',
            relatedEntityId: position.id,
            ...(result.replay ? { ledgerStatus: 'idempotent_replay' as const } : {}),
          };
          return reply.status(result.statusCode).send(result.body as never);
        } catch (error) {
          const status = error instanceof ApiError ? error.statusCode : 500;
          if (status !== 409 && status !== 403) {
            const reasons = error instanceof ApiError ? (error.extra.blockReasons as string[] | undefined) : undefined;
            const code = error instanceof ApiError ? (reasons?.join(',') ?? error.code) : 'internal_error';
            request.ledgerNote = { idempotencyKey: body.idempotencyKey, ...(reasons ? { blockReasons: reasons } : {}) };
            await recordRefusedOpen(ctx.database, ctx.clock, input, refusalKind(status, reasons), code).catch((e: unknown) =>
              request.log.warn({ err: e }, 'could not record the refused PM open'),
            );
          }
          throw error;
        }
      },
    );

    app.get(
      '/api/agent/positions/pm',
      {
        config: { scope: 'read', ledger: { eventType: 'read', venue: 'pm' } },
        schema: {
          summary: `The key's PM positions, open and historical (up to ${PM_POSITIONS_LIST_MAX}; open first)`,
          description:
            'Open rows carry currentProbability (chosen side now), unrealizedMark (shares × current/100) and unrealizedPnl (mark − stake). ' +
            'With updatedSince, only rows opened or settled at or after it; use the response asOf as the next updatedSince (more than 200 changes are read over several polls, oldest first).',
          tags: ['agent', 'pm'],
          security,
          querystring: Type.Object({ updatedSince: Type.Optional(DateTime) }),
          response: {
            200: PmPositionsResponse,
            ...agentErrors,
          },
        },
      },
      async (request) => {
        const nowMs = ctx.clock.now();
        const since = request.query.updatedSince ? new Date(request.query.updatedSince) : null;
        const rows = await listPmPositions(ctx.database.db, request.agentKey!.keyId, since);
        const markets = new Map<string, Promise<VenueMarketRead | null>>();
        const positions = await Promise.all(
          rows.map(async (row) => {
            if (row.status !== 'open') return pmPositionView(row, { market: null });
            const k = `${row.source}/${row.eventSlug}`;
            if (!markets.has(k)) markets.set(k, readVenueMarket(ctx.database, ctx.clock, row.source, row.eventSlug));
            return pmPositionView(row, { market: await markets.get(k)! });
          }),
        );
        const asOf = since ? deltaPollingAsOf(nowMs, rows.map((r) => r.updatedAt.getTime())) : pollingAsOf(nowMs);
        return { positions, updatedSince: since ? since.toISOString() : null, asOf } as Static<typeof PmPositionsResponse>;
      },
    );

    app.get(
      '/api/agent/pm/discover',
      {
        config: { scope: 'read', ledger: { eventType: 'read', venue: 'pm' } },
        schema: {
          summary: 'Open, quote-ready binary markets on trading venues; openable first, pinned last',
          tags: ['agent', 'pm'],
          security,
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
            q: Type.Optional(Type.String({ maxLength: 200 })),
            source: Type.Optional(StringEnum(['all', 'kalshi', 'polymarket'] as const)),
            sort: Type.Optional(StringEnum(DISCOVER_SORTS)),
          }),
          response: { 200: PmDiscoverResponse, ...agentErrors },
        },
      },
      async (request) => (await discoverPm(ctx, request.query)) as Static<typeof PmDiscoverResponse>,
    );

    app.post(
      '/api/agent/pm/opportunity',
      {
        config: { scope: 'read', ledger: { eventType: 'report', venue: 'pm' } },
        schema: {
          summary: 'Record a decision evaluated but not opened (abstained, forecast_only, quote_expired)',
          description: '201 new; 200 when (key, decisionId) was already recorded (idempotentReplay: true); 403 feature_disabled when AGENT_OPPORTUNITY_CAPTURE_ENABLED=false.',
          tags: ['agent', 'pm'],
          security,
          body: StrictBody({
            kind: StringEnum(['abstained', 'forecast_only', 'quote_expired'] as const),
            source: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
            slug: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
            outcomeExternalMarketId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
            side: Type.Optional(StringEnum(['yes', 'no'] as const)),
            forecastProbability: Type.Optional(Type.Number({ minimum: 1, maximum: 99 })),
            marketProbability: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
            reasonCode: Type.Optional(Type.String({ maxLength: 500 })),
            cohort: Type.Optional(
              Type.Object(
                { universeSize: Type.Optional(Type.Integer({ minimum: 0 })), horizon: Type.Optional(Type.String({ maxLength: 64 })) },
                { additionalProperties: false },
              ),
            ),
            decisionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            runId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            thesis: Type.Optional(FreeText({ maxLength: 280 })),
            agentTrace: Type.Optional(AgentTrace),
            provenance: Type.Optional(Provenance),
          }),
          response: { 200: OpportunityReceipt, 201: OpportunityReceipt, ...agentErrors },
        },
      },
      async (request, reply) => {
        if (!ctx.config.opportunityCaptureEnabled) throw new ApiError(403, 'feature_disabled', 'opportunity capture is not enabled');
        const body = request.body;
        // The route's own runId / decisionId mean what their agentTrace twins mean (the record takes
        // them first): the ledger row is traced by them too, so `?runId=` finds the report.
        if (request.trace) request.trace = { ...request.trace, runId: body.runId ?? request.trace.runId, decisionId: body.decisionId ?? request.trace.decisionId };
        if (body.kind === 'forecast_only' && body.forecastProbability === undefined) {
          throw invalidRequest('body.forecastProbability', 'forecast_only needs your own forecastProbability (1..99)');
        }
        if (body.kind !== 'forecast_only' && body.forecastProbability !== undefined) {
          throw invalidRequest('body.forecastProbability', 'forecastProbability is only for kind forecast_only');
        }
        const out = await recordOpportunity(ctx, request.agentKey!.keyId, body);
        request.ledgerNote = { relatedEntityType: 'decision', relatedEntityId: out.body.decisionUuid, ...(out.replay ? { ledgerStatus: 'idempotent_replay' as const } : {}) };
        return reply.status(out.replay ? 200 : 201).send(out.body as Static<typeof OpportunityReceipt>);
      },
    );
  };
}
