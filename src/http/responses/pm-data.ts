/** Response schemas of the keyless prediction-market research reads (contract 2.12, supplement 2.15–2.22). */
import { Type } from 'typebox';
import { DateTime, Nullable, OpenObject, StringEnum } from '../schemas.js';
import { Bool, DecisionSupport, Freshness, Int, Num, Str } from './common.js';

const NullNum = Nullable(Num());
const NullStr = Nullable(Str());
const NullTime = Nullable(DateTime);
const Orientation = StringEnum(['same', 'flipped', 'unknown'] as const);

/** Venue (S2): `{id, name}` of the seed plus kind and supportsTrading. */
export const SourceRef = Type.Object({
  id: Str(),
  name: Str(),
  kind: StringEnum(['market', 'play_money', 'forecast'] as const),
  supportsTrading: Bool(),
});

/** Per-outcome lifecycle (event detail only). */
const Lifecycle = Type.Object({
  state: StringEnum(['open', 'closed', 'resolved', 'voided', 'unknown'] as const),
  providerAcceptingOrders: Nullable(Bool()),
  entryBlockedByLifecycle: Bool(),
  isResult: Bool(),
  result: Nullable(StringEnum(['won', 'lost', 'voided'] as const)),
  basis: StringEnum(['provider', 'stored_winner', 'unknown'] as const),
  closedAt: NullTime,
  resolvedAt: NullTime,
  observedAt: NullTime,
});

const Outcome = Type.Object({
  externalMarketId: Str(),
  name: Str(),
  probability: Num({ description: 'raw venue-implied chance, 0..100 points' }),
  normalizedProbability: NullNum,
  hasObservedPrice: Bool(),
  priceBasis: Type.Optional(StringEnum(['unquoted', 'book_mid', 'last_trade'] as const, { description: 'polymarket/kalshi open outcomes only' })),
  sourceObservation: Nullable(
    Type.Object({
      version: Int(),
      basis: StringEnum(['provider_quote', 'last_price_untimed'] as const),
      provider: Str(),
      observedAt: NullTime,
      tradeDate: NullStr,
    }),
  ),
  priceChange24h: NullNum,
  lifecycle: Type.Optional(Lifecycle),
});

export const ReferenceProbability = Type.Object({
  kind: StringEnum(['binary', 'leader'] as const),
  outcomeName: NullStr,
  probability: Num(),
  venueCount: Int(),
  spreadPoints: Num(),
  computedAt: DateTime,
  methodologyVersion: Str(),
  methodologyUrl: Str(),
});

/** The event object of one venue market (S3); the detail adds crossPlatform, outcome lifecycles and representativeOutcomeBasis. */
export const PmEvent = Type.Object({
  id: Str(),
  slug: Str(),
  title: Str(),
  marketSubtitle: Type.Optional(Str()),
  status: Str({ description: 'open or closed' }),
  source: SourceRef,
  category: Str(),
  description: NullStr,
  volume24h: Num(),
  volume: Num(),
  liquidity: Num(),
  outcomes: Type.Array(Outcome),
  priceChange24h: NullNum,
  priceChange7d: NullNum,
  startDate: NullTime,
  endDate: NullTime,
  resolvedAt: NullTime,
  resolvedOutcomeExternalMarketId: NullStr,
  resolutionOutcomeBasis: NullStr,
  freshness: Freshness,
  bestBid: NullNum,
  bestAsk: NullNum,
  spread: NullNum,
  probabilityBook: Nullable(Type.Object({ basis: StringEnum(['normalized_complete_book', 'raw_quotes'] as const), rawSum: Num(), overroundPoints: Num() })),
  representativeOutcome: Type.Optional(Type.Object(Outcome.properties, { description: 'open events only (absent otherwise): the outcome row a headline quotes, with its lifecycle' })),
  representativeOutcomeBasis: Type.Optional(Nullable(StringEnum(['threshold_ladder_line', 'informative_leader'] as const))),
  decisionSupport: Nullable(DecisionSupport),
  relatedCoins: Type.Array(Str()),
  topics: Type.Array(Str()),
  canonicalEventId: NullStr,
  attribution: Str(),
  crossPlatform: Type.Optional(Type.Array(Type.Object({ source: Str(), orientation: Orientation, status: Str() }))),
  sparkline: Type.Optional(Type.Object({ series: Type.Array(Num({ description: '0..1 fraction' })), leaderOutcomeId: Str(), capturedAt: DateTime })),
  referenceProbability: Type.Optional(ReferenceProbability),
});

const Pagination = Type.Object({ limit: Int(), offset: Int(), hasMore: Bool() });

export const EventsResponse = Type.Object({
  data: Type.Array(PmEvent),
  pagination: Type.Object({ ...Pagination.properties, total: Int() }),
  meta: Type.Object({
    sources: Type.Array(Type.Object({ ...SourceRef.properties, lastIngestAt: NullTime, mode: NullStr })),
    sort: Str(),
    q: NullStr,
    fiat: Str(),
    attribution: Str(),
  }),
});

const WhaleTrade = Type.Object({
  wallet: NullStr,
  traderName: NullStr,
  side: Str(),
  outcome: Str(),
  marketQuestion: Str(),
  usdValue: Num(),
  price: Num({ description: '0..1 fraction' }),
  tradedAt: DateTime,
  event: Type.Object({ source: Str(), slug: Str(), title: Str() }),
  source: Str(),
  sourceName: Str(),
  eventSlug: Str(),
  eventTitle: Str(),
  evidenceType: Str(),
  evidenceRef: NullStr,
  evidenceUrl: NullStr,
  availability: StringEnum(['live', 'delayed'] as const),
  observedAt: DateTime,
  latencySeconds: Int(),
  attribution: Str(),
});

export const WhalesResponse = Type.Object({
  trades: Type.Array(WhaleTrade),
  coverage: Type.Array(
    Type.Object({
      source: Str(),
      name: Str(),
      availability: StringEnum(['live', 'delayed', 'unavailable'] as const),
      evidenceType: NullStr,
      tradeCount: Int(),
      lastObservedAt: NullTime,
    }),
    { description: 'one item per money venue, read from the whole served tape' },
  ),
  stats24h: Type.Object({ tradeCount: Int(), totalUsd: Num(), largestUsd: NullNum, venueCount: Int(), basis: Type.Literal('served_tape') }),
});

const ResolutionOutcome = Type.Object({ externalMarketId: Str(), name: Str(), probability: Num(), basis: Str({ description: 'source or final_probability' }) });

export const EventDetailResponse = Type.Object({
  event: PmEvent,
  relatedEvents: Type.Array(PmEvent),
  crossSourceMatches: Type.Array(
    Type.Object({
      source: Str(),
      sourceName: Str(),
      eventSlug: Str(),
      eventTitle: Str(),
      eventStatus: Str(),
      orientation: Orientation,
      confidence: NullNum,
      basis: NullStr,
      probability: NullNum,
      isAnchor: Bool(),
    }),
  ),
  resolution: Type.Object({
    published: Bool(),
    rules: NullStr,
    rulesTruncated: Bool(),
    settlementSource: NullStr,
    settlementSources: Nullable(Type.Array(Type.Object({ name: Str(), url: NullStr }))),
    state: StringEnum(['open', 'awaiting', 'resolved', 'voided'] as const),
    resolvedAt: NullTime,
    resolvedAtVerified: Bool(),
    closedAt: NullTime,
    resolutionOutcome: Nullable(ResolutionOutcome),
  }),
  referenceProbability: Nullable(ReferenceProbability),
  volumeHistory: Type.Array(Type.Object({ date: Str({ format: 'date' }), volume: Num(), volume24h: Num() })),
  relatedNews: Type.Array(
    Type.Object({
      title: Str(),
      source: Str({ description: 'publisher' }),
      url: Str(),
      publishedAt: DateTime,
      sentiment: Nullable(StringEnum(['bullish', 'bearish', 'neutral'] as const)),
      importance: Nullable(Int({ minimum: 0, maximum: 10, description: '8 and above = market-moving' })),
    }),
    { description: 'stories about the topic coins in the last 48 h, most important first (at most 5; none for an event without topic coins)', maxItems: 5 },
  ),
  topicRelatedCoins: Type.Array(Type.Object({ coinId: Str(), slug: Str(), symbol: Str(), name: Str() })),
  agentsTradingMarket: Type.Object({
    openPositions: Int(),
    agents: Type.Array(Type.Object({ handle: Str(), agentName: NullStr, model: NullStr, side: Str(), chosenOutcome: Str(), openedAt: DateTime })),
  }),
  recentWhaleTrades: Type.Array(WhaleTrade),
  translations: Type.Object({}, { description: 'reserved (always empty)' }),
  canonicalEventId: NullStr,
  attribution: Str(),
  fiat: Str(),
});

const Money = { volume24h: Num(), totalVolume: Num() };

export const OverviewResponse = Type.Object({
  stats: Type.Object({
    totalMarkets: Int(),
    totalOpenMarkets: Int(),
    totalClosedMarkets: Int(),
    totalVolume: Num(),
    volume24h: Num(),
    totalLiquidity: Num(),
  }),
  highlights: Type.Object({ gainers: Type.Array(PmEvent), losers: Type.Array(PmEvent), expiring: Type.Array(PmEvent) }),
  categories: Type.Array(Type.Object({ slug: Str(), name: Str(), count: Int() })),
  bySource: Type.Array(
    Type.Object({
      source: Type.Object({ id: Str(), name: Str() }),
      totalMarkets: Int(),
      openMarkets: Int(),
      ...Money,
      liquidity: Num(),
      lastIngestAt: NullTime,
    }),
  ),
  byCategory: Type.Array(Type.Object({ category: Str(), totalMarkets: Int(), openMarkets: Int(), volume24h: Num() })),
  updatedAt: DateTime,
  fiat: Str(),
});

export const PriceHistoryResponse = Type.Object({
  source: Str(),
  slug: Str(),
  interval: Str(),
  outcome: Nullable(Type.Object({ name: Str(), externalMarketId: Str() })),
  points: Type.Array(Type.Object({ t: Int({ description: 'unix milliseconds' }), p: Num({ description: '0..1 fraction' }) })),
  attribution: Str(),
});

const Bin = Type.Object({ bucket: Str(), predictedMean: Num(), realizedRate: Num(), pairs: Int() }, { description: 'bins with no pairs are left out' });
const SeriesStats = {
  sampleSize: Int(),
  calibrationError: NullNum,
  meanWinnerConfidence: NullNum,
  excluded: Type.Object({ noLeadPoint: Int(), partialBookAtLead: Int(), winnerNotAnOutcome: Int() }),
  reliability: Type.Array(Bin),
};

export const CalibrationResponse = Type.Object({
  leadHours: Int(),
  minSample: Int(),
  methodology: Str(),
  scored: Type.Array(Type.Object({ source: Str(), name: Str(), ...SeriesStats })),
  pending: Type.Array(Type.Object({ source: Str(), name: Str(), reason: Str(), sampleSize: Int() })),
  finalPrice: Type.Object({
    methodology: Str(),
    basis: Str(),
    series: Type.Array(
      Type.Object({
        source: Str(),
        name: Str(),
        years: Type.Array(Type.Object({ year: Int(), sampleSize: Int(), calibrationError: NullNum, reliability: Type.Array(Bin) })),
      }),
    ),
  }),
  ownCapture: Type.Object({
    methodology: Str(),
    basis: Str(),
    leadTimes: Type.Array(Type.Object({ source: Str(), name: Str(), medianLeadMinutes: Num(), p90LeadMinutes: Num() })),
    series: Type.Array(Type.Object({ source: Str(), name: Str(), sampleSize: Int(), calibrationError: NullNum, reliability: Type.Array(Bin) })),
  }),
  note: Str(),
});

export const ResolvedResponse = Type.Object({
  data: Type.Array(
    Type.Object({ event: PmEvent, resolvedAt: NullTime, resolvedAtVerified: Bool(), closedAt: NullTime, resolutionOutcome: Nullable(ResolutionOutcome) }),
  ),
  pagination: Pagination,
  totalResolved: Int(),
  meta: Type.Object({
    totalResolved: Nullable(Int({ description: 'null under a minVolume floor (the archive count is not volume-filtered)' })),
    minVolume: NullNum,
    period: Nullable(Type.Object({ year: Int(), month: Nullable(Int()) })),
  }),
  fiat: Str(),
});

export const ResolvedSummaryResponse = Type.Object({
  source: Str(),
  totalResolved: Int(),
  earliestYear: Nullable(Int()),
  providerTimeShare: Num(),
  byYear: Type.Array(Type.Object({ year: Int(), events: Int() })),
});

const MethodologyContent = {
  summary: Str(),
  steps: Type.Array(Str()),
  minVenues: Int(),
  weightCapMultipleOfMedian: Num(),
  scale: Str(),
  changelog: Type.Array(Type.Object({ version: Str(), date: Str({ format: 'date' }), change: Str() })),
};

export const ConsensusMethodologyResponse = Type.Object({
  schema: Str(),
  version: Str(),
  ...MethodologyContent,
  methodology: Type.Object(MethodologyContent, { description: 'reference shape: the method (same keys as at top level)' }),
  licence: Str(),
});

const CanonicalIdentity = {
  uuid: Str({ format: 'uuid', description: 'name-based uuid of the cluster key (stable)' }),
  slug: Str({ description: 'slugified anchor title + first 8 uuid characters' }),
  title: Str(),
  revision: Int(),
  memberCount: Int(),
  createdAt: DateTime,
  updatedAt: DateTime,
};

const CanonicalView = {
  ...CanonicalIdentity,
  canonicalEventId: Str(),
  title: Str(),
  kind: Str({ description: 'binary or multi' }),
  status: StringEnum(['open', 'closed'] as const),
  venueCount: Int(),
  referenceProbability: Nullable(ReferenceProbability),
  members: Type.Array(
    Type.Object({
      source: Str(),
      sourceName: Str(),
      slug: Str(),
      title: Str(),
      status: Str(),
      eventSlug: Str(),
      eventTitle: Str(),
      eventStatus: Str(),
      eventId: Int(),
      orientation: NullStr,
      confidence: NullNum,
      basis: NullStr,
      isAnchor: Bool(),
      outcomes: Type.Array(Type.Object({ name: Str(), probability: Num() })),
      liquidity: Num(),
    }),
  ),
  orientationRule: Str(),
};

const CanonicalItem = Type.Object(CanonicalView);

export const CanonicalEvent = Type.Object({
  ...CanonicalView,
  canonical: Type.Object({ ...CanonicalIdentity, status: Type.Literal('active') }),
  mergedInto: Type.Null({ description: 'always null: clusters are never merged here' }),
  consensus: Nullable(
    Type.Object({
      kind: StringEnum(['binary', 'leader'] as const),
      outcomeName: NullStr,
      probability: Num(),
      venueCount: Int(),
      spreadPoints: Num(),
      computedAt: DateTime,
      methodologyVersion: Str(),
      listings: Type.Array(Type.Object({ source: Str(), eventSlug: Str() })),
    }),
  ),
  consensusHistory: Type.Array(Type.Object({}), { maxItems: 0, description: 'no daily consensus tape is stored (always empty)' }),
  lineage: Type.Array(
    Type.Object({
      revision: Int(),
      action: StringEnum(['created', 'member_added'] as const),
      eventId: Int(),
      source: Str(),
      eventSlug: Str(),
      detail: OpenObject('what the matcher recorded (free-form)'),
      judgedBy: Type.Literal('matcher'),
      at: DateTime,
    }),
  ),
});

export const CanonicalListResponse = Type.Object({
  data: Type.Array(CanonicalItem),
  pagination: Type.Object({ limit: Int(), nextCursor: Nullable(Int({ description: 'row offset; accepted as cursor' })) }),
  nextCursor: NullStr,
});

export const TermsResponse = Type.Object({
  version: Str(),
  title: Str(),
  notFinancialAdvice: Str(),
  venueMarketData: Type.Object({ covers: Str(), allowed: Type.Array(Str()), forbidden: Type.Array(Str()) }),
  serviceCreatedData: Type.Object({ covers: Str(), rights: Str() }),
  attribution: Str(),
  consensusMethodology: Str(),
});
