/** Response schemas of the private action ledger and its export (with the run evidence manifest, supplement 2.6). */
import { Type } from 'typebox';
import { DateTime, Nullable, OpenObject, StringEnum } from '../schemas.js';
import { Bool, Int, Num, Str } from './common.js';

const VenueOutcome = Type.Object({ realizedPnlMusd: Num(), matchedOutcomeCount: Int() });

export const LedgerRowView = Type.Object({
  id: Int({ description: 'integer row id; the X-Service-Ledger-Event-Id header of the call' }),
  uuid: Str({ format: 'uuid', description: 'the row id before integer ids (kept beside it)' }),
  method: Str(),
  endpoint: Str(),
  venue: Nullable(Str()),
  eventType: Str({ description: 'read, quote, write, cancel, report' }),
  statusCode: Nullable(Int()),
  ledgerStatus: Str({ description: 'success, rejected, idempotent_replay, error' }),
  latencyMs: Nullable(Int()),
  idempotencyKey: Nullable(Str()),
  relatedEntityType: Nullable(Str()),
  relatedEntityId: Nullable(Str()),
  requestSummary: Nullable(OpenObject('a bounded summary of the request (free-form)')),
  responseSummary: Nullable(OpenObject('a bounded summary of the response (free-form)')),
  blockReasons: Type.Array(Str()),
  runId: Nullable(Str()),
  decisionId: Nullable(Str()),
  strategyLabel: Nullable(Str()),
  confidence: Nullable(Num()),
  rationaleSummary: Nullable(Str()),
  startedAt: DateTime,
  completedAt: Nullable(DateTime),
});

const Filters = Type.Object({
  venue: Type.Optional(Str()),
  eventType: Type.Optional(Str()),
  runId: Type.Optional(Str()),
  decisionId: Type.Optional(Str()),
  status: Type.Optional(Str()),
  from: Type.Optional(Str()),
  to: Type.Optional(Str()),
});

export const LedgerListResponse = Type.Object({
  data: Type.Array(LedgerRowView),
  pagination: Type.Object({ limit: Int(), offset: Int(), hasMore: Bool(), total: Int() }),
  filters: Filters,
  asOf: DateTime,
});

const Tally = Type.Array(Type.Object({ value: Str(), count: Int() }));
const CheckStatus = Str({ description: 'pass, warn or fail' });

const RunManifest = Type.Object({
  schema: Str({ description: 'svc.agentRunEvidence.v1' }),
  generatedAt: DateTime,
  source: Str(),
  definition: Str(),
  snapshotModel: Str(),
  retentionPolicy: Type.Object({
    schema: Str(),
    retentionDays: Int(),
    runListScanLimit: Int(),
    exportMaxRows: Int(),
    pruneBatchMax: Int(),
    policy: Str(),
  }),
  executionAssumptions: Type.Object({
    schema: Str(),
    accountModel: Str(),
    dataFreshness: Str(),
    costModel: Type.Object({ spot: Str(), futures: Str(), predictionMarkets: Str() }),
    executionTiming: Type.Object({ spotMarket: Str(), spotResting: Str(), futures: Str(), predictionMarkets: Str() }),
    reproducibilityCaveat: Str(),
  }),
  outcomeSummary: Nullable(
    Type.Object(
      {
        schema: Str(),
        mode: StringEnum(['best_effort_related_entities'] as const),
        coverage: StringEnum(['none', 'partial', 'complete'] as const),
        relatedEntityCount: Int({ description: 'distinct trade entities (spot fills and orders, futures and PM positions) the run named' }),
        matchedOutcomeCount: Int({ description: 'of them, those a trade-log row realized PnL on' }),
        unmatchedRelatedEntityCount: Int(),
        realizedPnlMusd: Num(),
        byVenue: Type.Object({ spot: VenueOutcome, futures: VenueOutcome, pm: VenueOutcome }),
        caveat: Str(),
      },
      { description: 'what the run’s trade entities came to, matched through the ledger rows; null when the run named none' },
    ),
  ),
  evidenceChecklist: Type.Object({
    schema: Str(),
    overallStatus: CheckStatus,
    items: Type.Array(Type.Object({ id: Str(), label: Str(), status: CheckStatus, detail: Str() })),
  }),
  summary: Type.Object({
    apiKeyId: Int(),
    runId: Str(),
    eventCount: Int(),
    firstEventAt: Nullable(DateTime),
    lastEventAt: Nullable(DateTime),
    quoteCount: Int(),
    writeCount: Int(),
    rejectionCount: Int(),
    idempotentReplayCount: Int(),
    observationCount: Int(),
    observationCoverageRate: Nullable(Num()),
    quoteBeforeTradeRate: Nullable(Num()),
    averageLatencyMs: Nullable(Num()),
    eventTypes: Tally,
    venues: Tally,
    ledgerStatuses: Tally,
    relatedEntities: Type.Array(Type.Object({ type: Str(), id: Str() })),
    maxRows: Int(),
    truncated: Bool(),
  }),
});

const NullNum = Nullable(Num());

export const LedgerExportResponse = Type.Object({
  apiKeyId: Int(),
  exportedAt: DateTime,
  count: Int(),
  maxRows: Int(),
  run: Nullable(RunManifest),
  data: Type.Array(LedgerRowView),
  futures: Type.Array(
    Type.Object({
      id: Int(),
      coinSymbol: Str(),
      side: StringEnum(['long', 'short'] as const),
      leverage: Num(),
      entryPrice: Num(),
      marginMusd: Num(),
      notionalMusd: Num(),
      sizeCoin: Num(),
      maintenanceMarginRate: Num(),
      liquidationPrice: Num(),
      stopLossPrice: NullNum,
      takeProfitPrice: NullNum,
      entryPriceAsOf: Nullable(DateTime),
      entryFreshnessAgeSeconds: NullNum,
      entryFreshnessStatus: Nullable(Str()),
      status: Str(),
      exitPrice: NullNum,
      exitReason: Nullable(Str()),
      realizedPnlMusd: NullNum,
      fillModel: Type.Null(),
      idempotencyKey: Nullable(Str()),
      openedAt: Nullable(DateTime),
      closedAt: Nullable(DateTime),
      createdAt: DateTime,
    }),
  ),
  futuresEvents: Type.Array(
    Type.Object({
      id: Int(),
      positionId: Int(),
      type: Str({ description: 'open, add, reduce, close, liquidation, stop_loss, take_profit, sl_tp_set' }),
      sizeDeltaCoin: Num(),
      markPrice: NullNum,
      fillPrice: NullNum,
      realizedPnlMusd: Num({ description: '0 on events that realize nothing (open, add, sl_tp_set)' }),
      marginDeltaMusd: Num(),
      feeMusd: Num(),
      slippageMusd: Num(),
      executionVersion: Nullable(Str()),
      idempotencyKey: Nullable(Str()),
      createdAt: DateTime,
    }),
  ),
});
