/** Response schemas of the reference's extra PM research endpoints (reference-shapes §2, A2–A12). */
import { Type, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../schemas.js';
import { PmEvent, ReferenceProbability } from './pm-data.js';

const DateTime = Type.String({ format: 'date-time' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const closed = { additionalProperties: false };

export const OffsetPagination = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() }, closed);

const ResolutionOutcome = Type.Object(
  { externalMarketId: Type.String(), name: Type.String(), probability: Type.Number(), basis: StringEnum(['source', 'final_probability'] as const) },
  closed,
);

const MicroOutcome = Nullable(Type.Object({ name: Nullable(Type.String()), externalMarketId: Nullable(Type.String()) }, closed));

const OutcomeComparison = Type.Object(
  { outcome: Type.String(), eventAProbability: Type.Number(), eventBProbability: Type.Number(), deltaPoints: Type.Number() },
  closed,
);

export const PublicMatchesResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          clusterId: Type.String(),
          primaryEventId: Type.String(),
          title: Type.String(),
          events: Type.Array(PmEvent),
          comparisons: Type.Array(
            Type.Object(
              {
                matchId: Type.String(),
                eventAId: Type.String(),
                eventBId: Type.String(),
                confidence: Type.Number(),
                matchMethod: Type.String(),
                orientation: StringEnum(['same', 'flipped', 'unknown'] as const),
                divergence: Nullable(Type.Number({ description: 'points between the two venues on the anchor’s representative outcome' })),
                maxOutcomeDelta: Nullable(Type.Number()),
                comparison: Type.Array(OutcomeComparison),
              },
              closed,
            ),
          ),
          maxOverallGap: Nullable(Type.Number({ description: 'largest divergence of the pairs; null when no pair could be compared' })),
          maxOutcomeGap: Nullable(Type.Number({ description: 'largest per-outcome delta; null when no pair could be compared' })),
          maxConfidence: Type.Number(),
          referenceProbability: Nullable(ReferenceProbability),
        },
        closed,
      ),
    ),
    total: Type.Integer(),
    hasMore: Type.Boolean(),
    pagination: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), nextOffset: Nullable(Type.Integer()) }, closed),
    meta: Type.Object({ sort: Type.String(), fiat: Type.String(), requirePriced: Type.Boolean() }, closed),
  },
  closed,
);

export const SurprisesResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          event: PmEvent,
          resolvedAt: Nullable(DateTime),
          resolvedAtVerified: Type.Boolean(),
          closedAt: Nullable(DateTime),
          resolutionOutcome: ResolutionOutcome,
          surprise: Type.Object({ t24hProbability: Type.Number(), t7dProbability: Nullable(Type.Number()) }, closed),
        },
        closed,
      ),
    ),
    window: StringEnum(['7d', '30d', '90d', 'all'] as const),
    pagination: OffsetPagination,
  },
  closed,
);

export const ExpiringResponse = Type.Object(
  {
    data: Type.Array(Type.Object({ ...PmEvent.properties, expiresInMs: Type.Integer({ minimum: 0 }) })),
    pagination: OffsetPagination,
    meta: Type.Object({ totalExpiring: Type.Integer(), window: Type.Object({ from: DateTime, to: DateTime }, closed) }, closed),
  },
  closed,
);

export const VolumeHistoryResponse = Type.Object(
  {
    days: Type.Array(
      Type.Object(
        {
          day: Day,
          volume24h: Nullable(Type.Number()),
          bySource: Type.Array(Type.Object({ source: Type.String(), name: Type.String(), volume24h: Nullable(Type.Number()) }, closed)),
        },
        closed,
      ),
    ),
    updatedAt: DateTime,
    meta: Type.Object({ unit: Type.String(), venues: Type.Array(Type.String()), basis: Type.String(), windowDays: Type.Integer() }, closed),
  },
  closed,
);

const Level = Type.Object({ price: Type.Number({ minimum: 0, maximum: 1 }), size: Type.Number({ minimum: 0 }) }, closed);

export const OrderBookResponse = Type.Object(
  {
    source: Type.String(),
    slug: Type.String(),
    outcome: MicroOutcome,
    orderBook: Nullable(
      Type.Object(
        {
          bid: Nullable(Type.Number()),
          ask: Nullable(Type.Number()),
          spread: Nullable(Type.Number()),
          midpoint: Nullable(Type.Number()),
          bids: Type.Array(Level),
          asks: Type.Array(Level),
          basis: Type.String({ description: 'modeled_from_top_of_book: depth is modeled from the stored best bid/ask and liquidity' }),
          askEvidence: Type.Optional(Type.Object({ validated: Type.Boolean(), receivedAt: DateTime }, closed)),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const TradesResponse = Type.Object(
  {
    source: Type.String(),
    slug: Type.String(),
    outcome: MicroOutcome,
    trades: Type.Array(
      Type.Object(
        {
          side: Type.String(),
          price: Type.Number(),
          size: Type.Number({ minimum: 0 }),
          usdValue: Type.Number(),
          outcome: Nullable(Type.String()),
          who: Nullable(Type.String()),
          timestamp: DateTime,
          basis: StringEnum(['capture_volume_delta', 'large_print'] as const),
        },
        closed,
      ),
      { maxItems: 20 },
    ),
  },
  closed,
);

const Money = Type.Number();

export const WhaleWalletsResponse = Type.Object(
  {
    window: StringEnum(['7d', '30d'] as const),
    venues: Type.Array(Type.String()),
    wallets: Type.Array(
      Type.Object(
        {
          wallet: Type.String(),
          address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
          traderName: Nullable(Type.String()),
          venues: Type.Array(Type.Object({ source: Type.String(), name: Type.String(), tradeCount: Type.Integer(), totalUsd: Money }, closed)),
          tradeCount: Type.Integer(),
          totalUsd: Money,
          maxUsd: Money,
          firstSeen: Nullable(DateTime),
          lastSeen: Nullable(DateTime),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const WhaleWalletResponse = Type.Object(
  {
    source: Type.String(),
    sourceName: Type.String(),
    sourceIcon: Nullable(Type.String()),
    wallet: Type.String(),
    walletShort: Nullable(Type.String()),
    traderName: Nullable(Type.String()),
    summary30d: Type.Object(
      { tradeCount: Type.Integer(), totalUsd: Money, buyUsd: Money, sellUsd: Money, maxUsd: Money, eventCount: Type.Integer(), basis: Type.String() },
      closed,
    ),
    rollup: Type.Object({ firstSeen: Nullable(DateTime), lastSeen: Nullable(DateTime), activeDays: Type.Integer() }, closed),
    daily: Type.Array(Type.Object({ day: Day, tradeCount: Type.Integer(), totalUsd: Money }, closed)),
    topEvents30d: Type.Array(Type.Object({ slug: Type.String(), title: Type.String(), tradeCount: Type.Integer(), totalUsd: Money }, closed)),
    recentFills: Type.Array(
      Type.Object(
        {
          side: StringEnum(['BUY', 'SELL'] as const),
          slug: Type.String(),
          title: Type.String(),
          outcome: Type.String(),
          price: Type.Number(),
          usdValue: Money,
          tradedAt: DateTime,
          evidenceRef: Nullable(Type.String()),
        },
        closed,
      ),
    ),
  },
  closed,
);

const nullableNumber = () => Nullable(Type.Number());
const nullableInteger = () => Nullable(Type.Integer());

const Coverage = Type.Object(
  {
    computedAt: DateTime,
    completenessClass: StringEnum(['open_sweep_exhausted', 'open_sweep_bounded', 'unknown'] as const),
    universeVerified: Type.Boolean(),
    universeEstimate: nullableInteger(),
    openUniverseVerified: Type.Boolean(),
    openUniverseProviderTotal: nullableInteger(),
    openUniverseTotalBasis: Nullable(Type.String()),
    openUniverseEnumerated: nullableInteger(),
    enumeratedTotal: Type.Integer(),
    openCount: Type.Integer(),
    closedCount: Type.Integer(),
    resolvedProviderCount: Type.Integer(),
    anyResolutionRate: nullableNumber(),
    providerResolutionRate: nullableNumber(),
    freshnessP50Seconds: nullableInteger(),
    freshnessP95Seconds: nullableInteger(),
    freshnessP99Seconds: nullableInteger(),
    catalogFirstSeenDay: Nullable(Day),
    probabilityHistoryStartDay: Nullable(Day),
    historyStartDay: Nullable(Day),
    resolutionCoverageRate: nullableNumber(),
    missingFieldRates: Nullable(Type.Object({ description: nullableNumber(), endDate: nullableNumber(), rules: nullableNumber() }, closed)),
    approvedMatchCount: nullableInteger(),
    avgMatchConfidence: nullableNumber(),
    lastFullReconciliationAt: Nullable(DateTime),
  },
  closed,
);

export const SourcesResponse = Type.Object(
  {
    sources: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          kind: StringEnum(['market', 'play_money', 'forecast'] as const),
          supportsTrading: Type.Boolean(),
          coverage: Nullable(Coverage),
          stats: Type.Object(
            { totalEvents: Type.Integer(), openEvents: Type.Integer(), closedEvents: Type.Integer(), volume24h: Money, liquidity: Money },
            closed,
          ),
        },
        closed,
      ),
    ),
    fiat: Type.String(),
  },
  closed,
);

export const SourcesHealthResponse = Type.Object(
  {
    asOf: DateTime,
    thresholds: Type.Object({ laggingFromSeconds: Type.Integer(), staleFromSeconds: Type.Integer() }, closed),
    summary: Type.Object({ venues: Type.Integer(), healthy: Type.Integer(), degraded: Type.Integer(), fresh: Type.Integer() }, closed),
    degraded: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), reasons: Type.Array(Type.String()) }, closed)),
    sources: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          isActive: Type.Boolean(),
          mode: Nullable(Type.String()),
          lastIngestAt: Nullable(DateTime),
          lagSeconds: Nullable(Type.Number()),
          freshness: StringEnum(['fresh', 'lagging', 'stale', 'never_ingested'] as const),
          openEvents: Type.Integer(),
          totalEvents: Type.Integer(),
          catalog: Type.Object({ completenessClass: Type.String(), enumerated: Type.Integer(), lastError: Nullable(Type.String()) }, closed),
          degraded: Type.Array(Type.String()),
        },
        closed,
      ),
    ),
  },
  closed,
);

const AnyJson: TSchema = Type.Unknown();

export const RevisionsResponse = Type.Object(
  {
    subjectKey: Type.String(),
    revisions: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          field: Type.String(),
          prevValue: AnyJson,
          nextValue: AnyJson,
          reasonCode: Type.String(),
          effectiveAt: Nullable(DateTime),
          observedAt: DateTime,
          evidence: Type.Object(
            {
              runId: Nullable(Type.Integer()),
              captureId: Nullable(Type.Integer()),
              parserVersion: Nullable(Type.String()),
              matcherVersion: Nullable(Type.String()),
              buildSha: Nullable(Type.String()),
            },
            closed,
          ),
          supersedesId: Nullable(Type.Integer()),
        },
        closed,
      ),
    ),
    truncated: Type.Boolean(),
    asOf: Type.Optional(DateTime),
    reconstructed: Type.Optional(Type.Record(Type.String(), AnyJson)),
  },
  closed,
);
