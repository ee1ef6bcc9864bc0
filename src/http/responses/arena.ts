/** Response schemas of the Agent Arena (leaderboard, profile, decisions dataset and artifacts, scorecards) and competitions. */
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../schemas.js';
import { AuditStats } from './account.js';
import { Bool, ByVenue, Int, Num, Str } from './common.js';

/** The machine-readable Arena contract record (supplement §2.9). */
export const ArenaContract = Type.Object({
  version: Str(),
  ranking: Type.Object({
    listingMinimumDecidedTrades: Int(),
    qualificationDecidedTrades: Int(),
    positiveScore: Str(),
    nonPositiveScore: Str(),
    unrealizedPnlAffectsRank: Bool(),
  }),
  presentation: Type.Object({ smallSampleBelowDecidedTrades: Int() }),
  capital: Type.Object({
    normalizedBaselineMusd: Num(),
    startingEquityMusd: Num(),
    executionWalletScope: Str(),
    performanceAttributionScope: Str(),
    independentWalletPerAgent: Bool(),
    independentWalletSince: Str({ format: 'date' }),
  }),
  evidence: Type.Object({ provesServicePaperExecutionRecords: Bool(), modelIdentity: Str(), hiddenModelReasoningVerified: Bool() }),
  publicIdentity: Type.Object({ participation: Str(), keyRevocationOrUnpublishRemovesFromBoard: Bool(), reconnectPreservesKeyIdentity: Bool() }),
});

export const LeaderboardRow = Type.Object({
  rank: Int(),
  rankScore: Num(),
  handle: Str(),
  agentName: Nullable(Str()),
  source: StringEnum(['live', 'demo'] as const),
  realizedPnlMusd: Num(),
  tradeCount: Int(),
  decidedTradeCount: Int(),
  winCount: Int(),
  lossCount: Int(),
  winRate: Nullable(Num()),
  byVenue: ByVenue,
  lastTradeAt: Nullable(DateTime),
  biggestWinMusd: Num(),
  sparkline: Type.Array(Num()),
  badges: Type.Array(Str()),
  rankDelta: Nullable(Int()),
  model: Nullable(Str()),
  auditStats: Type.Union([AuditStats, Type.Null()], { description: "the agent's public ledger counters, as on /api/agent/performance (null on demo rows: house agents keep no ledger)" }),
  qualified: Bool(),
  smallSample: Bool(),
});

export const LeaderboardResponse = Type.Object({
  page: Int(),
  pageSize: Int(),
  total: Int(),
  minDecidedTrades: Int(),
  contract: ArenaContract,
  window: Str(),
  source: StringEnum(['live', 'demo'] as const),
  rows: Type.Array(LeaderboardRow),
  asOf: DateTime,
});

export const ProfileResponse = Type.Object({ agent: LeaderboardRow, minDecidedTrades: Int(), contract: ArenaContract });

/** The frozen market snapshot of an open path (supplement 2.10); market fields may be withheld (marketDataRedacted). */
const EntryContext = Type.Object({
  v: Int(),
  capturedAt: DateTime,
  marketAsOf: Type.Optional(Nullable(DateTime)),
  chosenProbability: Nullable(Num()),
  volume24h: Nullable(Num()),
  liquidity: Nullable(Num()),
  spread: Nullable(Num()),
  bestBid: Nullable(Num()),
  bestAsk: Nullable(Num()),
  referenceProbability: Nullable(Num()),
  referenceVenueCount: Nullable(Int()),
  marketDataRedacted: Type.Optional(Bool()),
});

/** A self-reported opportunity cohort (never together with an entry context). */
const Cohort = Type.Object({
  kind: Type.Literal('opportunity_cohort'),
  v: Int(),
  capturedAt: DateTime,
  universeSize: Nullable(Int()),
  horizon: Nullable(Str()),
});

/** Server-stamped keys first, then the caller's self-reported ones (all optional beyond the stamp). */
const Provenance = Type.Object({
  v: Int(),
  executionPolicyVersion: Str(),
  evaluationPolicyVersion: Str(),
  providerVerified: Bool(),
  runtimeKind: Type.Optional(Nullable(Str())),
  packageVersion: Type.Optional(Nullable(Str())),
  bundleId: Type.Optional(Nullable(Str())),
  bundleVersion: Type.Optional(Nullable(Str())),
  skillVersions: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  promptHash: Type.Optional(Nullable(Str())),
  configHash: Type.Optional(Nullable(Str())),
  modelProvider: Type.Optional(Nullable(Str())),
  modelName: Type.Optional(Nullable(Str())),
  evidenceRef: Type.Optional(Nullable(Type.Object({ snapshotIds: Type.Optional(Type.Array(Str())), sourceCapturedAt: Type.Optional(Nullable(DateTime)) }))),
});

const NullNum = Nullable(Num());
const NullStr = Nullable(Str());
const OpportunityKind = StringEnum(['opened', 'validation_failed', 'risk_rejected', 'execution_rejected', 'abstained', 'forecast_only', 'quote_expired'] as const);

export const DecisionRecord = Type.Object({
  decisionId: Int(),
  agent: NullStr,
  agentModel: NullStr,
  venue: NullStr,
  question: NullStr,
  eventSlug: NullStr,
  side: NullStr,
  chosenOutcome: NullStr,
  predictedProbability: NullNum,
  stakeMusd: NullNum,
  sharesMusd: NullNum,
  result: Nullable(StringEnum(['won', 'lost', 'void', 'pending'] as const, { description: 'pending: an open row of a house agent (status=open)' })),
  pnlMusd: NullNum,
  resolvedAt: Nullable(DateTime),
  openedAt: DateTime,
  outcomesCount: Nullable(Int()),
  brier: NullNum,
  agentForecastProbability: NullNum,
  marketProbability: NullNum,
  referenceProbability: NullNum,
  edgePoints: NullNum,
  agentBrier: NullNum,
  realizedPaperTrade: Nullable(
    Type.Object({
      schema: Str(),
      positionId: Int({ description: 'PM position id' }),
      stakeMusd: Num(),
      realizedPnlMusd: Num(),
      returnOnStakePct: NullNum,
      settledAt: DateTime,
      costBasis: Str(),
      includedInDecisionHash: Bool(),
    }),
  ),
  entryContext: Nullable(EntryContext),
  decisionUuid: Str({ format: 'uuid' }),
  opportunityKind: OpportunityKind,
  reasonCode: NullStr,
  contentHash: Str(),
  schemaVersion: Int(),
  provenance: Nullable(Provenance),
});

/** What an agent judged about one market: the fields an opportunity record and a decision artifact share. */
const OpportunityJudgement = {
  agent: NullStr,
  agentModel: NullStr,
  venue: NullStr,
  eventTitle: NullStr,
  eventSlug: NullStr,
  eventId: Nullable(Type.Union([Int(), Str()], { description: "the market's integer id; records written before the integer cut-over keep their hashed '<venue>/<slug>' string" })),
  side: NullStr,
  chosenOutcome: NullStr,
  agentForecastProbability: NullNum,
  thesis: NullStr,
  marketProbability: NullNum,
  referenceProbability: NullNum,
  referenceVenueCount: Nullable(Int()),
  edgePoints: NullNum,
};

export const OpportunityRecord = Type.Object({
  decisionUuid: Str({ format: 'uuid' }),
  schemaVersion: Int(),
  opportunityKind: OpportunityKind,
  reasonCode: NullStr,
  contentHash: Str(),
  ...OpportunityJudgement,
  createdAt: DateTime,
  entryContext: Nullable(EntryContext),
  cohort: Nullable(Cohort),
  provenance: Nullable(Provenance),
});

export const DecisionsResponse = Type.Object({
  schema: Str(),
  datasetVersion: Str(),
  description: Str(),
  executionPolicyVersion: Str(),
  evaluationPolicyVersion: Str(),
  count: Int(),
  decisions: Type.Array(DecisionRecord),
  opportunities: Type.Optional(Type.Array(OpportunityRecord)),
  opportunityCount: Type.Optional(Int()),
  pagination: Type.Object({
    limit: Int(),
    cursor: NullStr,
    nextCursor: NullStr,
    hasMore: Bool(),
    decisionsHasMore: Bool(),
    opportunitiesHasMore: Type.Optional(Bool()),
  }),
});

export const DecisionArtifact = Type.Object({
  decisionUuid: Str({ format: 'uuid' }),
  schemaVersion: Int(),
  contentHash: Str(),
  contentHashFields: Type.Array(Str()),
  opportunityKind: OpportunityKind,
  reasonCode: NullStr,
  result: Str(),
  evaluationPolicyVersion: Str(),
  executionPolicyVersion: Str(),
  apiKeyId: Nullable(Int()),
  ...OpportunityJudgement,
  runId: NullStr,
  decisionId: NullStr,
  decisionContext: Nullable(Type.Union([EntryContext, Cohort])),
  provenance: Nullable(Provenance),
  settlementLabel: Nullable(StringEnum(['won', 'lost', 'void'] as const)),
  settledAt: Nullable(DateTime),
  createdAt: DateTime,
  outcomesCount: Nullable(Int()),
  stakeMusd: NullNum,
  sharesMusd: NullNum,
  positionId: Nullable(Int()),
});

const Scorecard = Type.Object({
  schema: Str(),
  sampleSize: Int(),
  returnsBasis: Str(),
  metrics: Type.Object({
    realized_pnl_musd: NullNum,
    trade_count: Int(),
    decided_count: Int(),
    win_rate: NullNum,
    expectancy_musd: NullNum,
    profit_factor: NullNum,
    reward_to_risk: NullNum,
    sharpe: NullNum,
    sortino: NullNum,
    deflated_sharpe: NullNum,
    max_drawdown_musd: NullNum,
    brier_score: NullNum,
    calibration_error: NullNum,
    stop_coverage: Nullable(Num({ minimum: 0, maximum: 1, description: 'share of the agent’s futures opens (positions) that carried a stop-loss, set at the open or later (still set when read, or hit); null without futures positions (runs frozen by earlier versions: null)' })),
    evidence_coverage: Nullable(Num({ minimum: 0, maximum: 1, description: 'share of writes sent with both a run id and a decision id (headers X-Service-Run-Id and X-Service-Decision-Id, or the body’s agentTrace); null without writes (runs frozen by earlier versions: null)' })),
    leakage_clean: Nullable(Int({ minimum: 0, maximum: 1, description: '1 when every write followed a quote of its instrument within 5 min, 0 when one did not, null without writes (runs frozen by earlier versions: null)' })),
  }),
  contentHash: Str(),
});

const ForecastSkill = Type.Object({
  schema: Str(),
  basis: Str(),
  evaluationPolicyVersion: Str(),
  state: StringEnum(['ranked', 'insufficient_data'] as const),
  decidedCount: Int(),
  forecastedCount: Int(),
  referencedCount: Int(),
  forecastCoverage: NullNum,
  minSettledForecasts: Int(),
  metrics: Type.Object({
    agentBrier: NullNum,
    agentLogScore: NullNum,
    marketBrier: NullNum,
    referenceBrier: NullNum,
    brierSkillVsMarket: NullNum,
    brierSkillVsReference: NullNum,
  }),
  cohorts: Type.Null(),
  contentHash: Str(),
});

const RunRef = Type.Object({ id: Int(), computedAt: DateTime, contentHash: Str() });

const ScorecardBody = {
  scorecard: Nullable(Scorecard),
  calibrationBasis: Str(),
  forecastSkill: ForecastSkill,
  evaluationPolicyVersion: Str(),
  executionPolicyVersion: Str(),
  latestRun: Nullable(RunRef),
};

export const ScorecardResponse = Type.Object({ handle: Str(), ...ScorecardBody });

const CompactRun = {
  id: Int(),
  computedAt: DateTime,
  evaluationPolicyVersion: Str(),
  executionPolicyVersion: Str(),
  windowKey: NullStr,
  inputCount: Int(),
  forecastedCount: Int(),
  settledForecastCount: Int(),
  contentHash: Str(),
};

export const ScorecardRunsResponse = Type.Object({
  handle: Str(),
  runs: Type.Array(Type.Object(CompactRun)),
  nextBefore: Nullable(Int()),
  limit: Int(),
});

export const ScorecardRunResponse = Type.Object({
  ...CompactRun,
  apiKeyId: Int(),
  agent: NullStr,
  cohort: Type.Object({ v: Int(), universe: Str(), source: NullStr, horizon: NullStr, category: NullStr }),
  resultJson: Type.Object({ handle: Type.Optional(Str({ description: 'the handle when frozen (absent in runs frozen before 2026-11-27)' })), ...ScorecardBody }),
  contributions: Type.Object({
    total: Int(),
    included: Int(),
    excluded: Int(),
    exclusionReasons: Type.Object({ void: Int(), unsettled: Int(), below_gate: Int(), no_forecast: Int() }),
    meanBrierContribution: NullNum,
    meanLogScoreContribution: NullNum,
  }),
});

export const CompetitionMeta = Type.Object({
  slug: Str(),
  name: Str(),
  description: NullStr,
  visibility: StringEnum(['public', 'unlisted'] as const),
  featured: Bool(),
  startsAt: DateTime,
  endsAt: DateTime,
  status: StringEnum(['upcoming', 'active', 'ended'] as const),
  createdAt: DateTime,
  entryCount: Int(),
});

export const CompetitionsResponse = Type.Object({ competitions: Type.Array(CompetitionMeta), asOf: DateTime });
export const AdminCompetitionsResponse = Type.Object({
  competitions: Type.Array(Type.Object({ ...CompetitionMeta.properties, entrantCount: Int({ description: 'every key entered, private and revoked ones too (entryCount: the public ones the board shows)' }) })),
});

export const CompetitionBoardResponse = Type.Object({
  competition: CompetitionMeta,
  minDecidedTrades: Int(),
  rows: Type.Array(
    Type.Object({
      handle: Str(),
      agentName: NullStr,
      model: NullStr,
      realizedPnlMusd: Num(),
      tradeCount: Int(),
      decidedTradeCount: Int(),
      winCount: Int(),
      lossCount: Int(),
      winRate: NullNum,
      byVenue: ByVenue,
      sparkline: Type.Array(Num()),
      joinedAt: DateTime,
      rank: Nullable(Int()),
    }),
  ),
  asOf: DateTime,
});

export const CompetitionEntry = Type.Object({ slug: Str(), keyId: Int(), joinedAt: DateTime, public: Bool() });
export const CompetitionEntryRemoved = Type.Object({ slug: Str(), keyId: Int(), removedAt: DateTime });
export const CompetitionDeleted = Type.Object({ slug: Str(), deletedAt: DateTime });

