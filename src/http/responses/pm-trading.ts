/** Response schemas of mock prediction-market trading (quote, open, positions, discover, opportunity receipts). */
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../schemas.js';
import { Bool, DecisionSupport, Freshness, Int, Num, Observation, Str } from './common.js';
import { ExecutionModel } from './spot.js';

const PmSide = StringEnum(['yes', 'no'] as const);

/** The quality verdict on a market's latest capture (supplement 1.0 PmQuality). */
export const PmQuality = Type.Object({
  decisionEligible: Bool(),
  warningReasons: Type.Array(Str()),
  blockReasons: Type.Array(Str()),
  policyVersion: Str(),
  assessedAt: Nullable(DateTime),
});

const FrozenSnapshot = Type.Object({
  outcomes: Type.Array(Type.Object({ externalMarketId: Str(), name: Str(), probability: Num({ description: '0..100 points' }) })),
  chosen: Type.Object({ externalMarketId: Str(), name: Str(), side: PmSide }),
  capturedAt: DateTime,
});

export const PmQuoteResponse = Type.Object({
  eligible: Bool(),
  blockReasons: Type.Array(Str()),
  fillBasis: Str(),
  side: PmSide,
  entryProbability: Nullable(Num()),
  fillProbability: Nullable(Num()),
  sharesEstimate: Nullable(Num()),
  maxPayout: Nullable(Num()),
  stakeMusd: Num(),
  minStake: Num(),
  frozenEntrySnapshot: FrozenSnapshot,
  freshness: Freshness,
  decisionSupport: DecisionSupport,
  quality: Type.Optional(PmQuality),
  openBlocked: Bool(),
  openBlockReasons: Type.Array(Str()),
  executionModel: Nullable(ExecutionModel),
  eligibility: Type.Object({
    settlementState: StringEnum(['pending', 'settled', 'voided'] as const),
    shape: Str(),
    entryEligible: Bool(),
    alertEligible: Bool(),
    settlementEligible: Bool(),
    limbo: Bool(),
  }),
  event: Type.Object({ source: Str(), slug: Str(), title: Str(), status: Str() }),
  edgeSizing: Nullable(
    Type.Object({
      basis: Type.Literal('fractional_kelly_capped'),
      kellyMultiplier: Num(),
      maxFraction: Num(),
      edgePoints: Num(),
      kellyFraction: Num(),
      appliedFraction: Num(),
      suggestedStakeMusd: Nullable(Num()),
      noEdge: Bool(),
    }),
  ),
  observation: Observation,
});

/** A PM position (supplement 2.5); open rows read live carry the current mark. */
export const PmPosition = Type.Object({
  id: Int(),
  status: Str({ description: 'open, settled, voided' }),
  source: Str(),
  eventSlug: Str(),
  eventTitle: Str(),
  outcome: Type.Object({ externalMarketId: Str(), label: Str(), tokenId: Type.Null() }),
  side: PmSide,
  fillBasis: Str(),
  entryProbability: Num(),
  fillProbability: Num(),
  entryProbSum: Num(),
  stakeMusd: Num(),
  sharesMusd: Num(),
  maxPayout: Num(),
  feeMusd: Num(),
  shape: Str(),
  marketsCount: Nullable(Int()),
  entryOutcomesSnapshot: Nullable(FrozenSnapshot),
  freshnessAtEntry: Freshness,
  eventStatusAtEntry: Nullable(Str()),
  settlementState: Str(),
  voidReason: Nullable(Str()),
  payoutMusd: Nullable(Num()),
  pnlMusd: Nullable(Num()),
  openedAt: DateTime,
  settledAt: Nullable(DateTime),
  createdAt: DateTime,
  currentProbability: Type.Optional(Nullable(Num())),
  unrealizedMark: Type.Optional(Nullable(Num())),
  unrealizedPnl: Type.Optional(Nullable(Num())),
  relatedCoins: Type.Optional(Type.Array(Str())),
  eventEndDate: Type.Optional(Nullable(DateTime)),
});

export const PmPositionEnvelope = Type.Object({ position: PmPosition, idempotentReplay: Type.Optional(Bool()) });

export const PmPositionsResponse = Type.Object({ positions: Type.Array(PmPosition), updatedSince: Nullable(DateTime), asOf: DateTime });

export const PmDiscoverResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      source: Str(),
      slug: Str(),
      title: Str(),
      endDate: Nullable(DateTime),
      relatedCoins: Type.Array(Str()),
      freshness: Freshness,
      pinned: Bool(),
      eligible: Bool(),
      eligibleBlockReasons: Type.Array(Str()),
      quality: Type.Optional(PmQuality),
      outcomes: Type.Array(Type.Object({ externalMarketId: Str(), name: Str(), probability: Num(), tokenId: Type.Null(), eligible: Bool() })),
      volume24h: Num(),
      liquidity: Num(),
      spread: Nullable(Num()),
      decisionSupport: DecisionSupport,
      resolution: Nullable(
        Type.Object({
          published: Bool(),
          rules: Nullable(Str()),
          rulesTruncated: Bool(),
          settlementSource: Nullable(Str()),
          settlementSources: Nullable(Type.Array(Type.Object({ name: Str(), url: Nullable(Str()) }))),
        }),
      ),
      quoteHint: Type.Object({ endpoint: Str(), source: Str(), slug: Str(), stakeMusdMin: Num(), outcomeExternalMarketIdField: Str() }),
    }),
  ),
  pagination: Type.Object({ limit: Int(), offset: Int(), hasMore: Bool() }),
  meta: Type.Object({
    source: Str(),
    sources: Type.Array(Str()),
    sourceHealth: Type.Array(
      Type.Object({
        slug: Str(),
        lastIngestAt: Nullable(DateTime),
        ingestAgeSeconds: Nullable(Int()),
        status: StringEnum(['fresh', 'stale', 'never_ingested'] as const),
      }),
    ),
    sort: Str(),
    q: Nullable(Str()),
    note: Str(),
  }),
  observation: Observation,
});

export const OpportunityReceipt = Type.Object({
  decisionUuid: Str({ format: 'uuid' }),
  opportunityKind: Str(),
  result: Str(),
  idempotentReplay: Bool(),
  thesis: Nullable(Str()),
  contentHash: Str(),
  schemaVersion: Int(),
});
