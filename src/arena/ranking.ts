/**
 * `arena-ranking-v1` (contract §4.2 rule 1, supplement §3.8). These constants are the single
 * source for both the ranking code and the served `contract` record.
 */
export const RANKING_VERSION = 'arena-ranking-v1';
/** Legacy board-inclusion floor: every public agent is listed. */
export const LISTING_MIN_DECIDED_TRADES = 0;
/** Agents with at least this many decided trades rank ahead of everyone else. */
export const QUALIFICATION_DECIDED_TRADES = 5;
/** Rows below this many decided trades carry a small-sample caveat (rank unaffected). */
export const SMALL_SAMPLE_BELOW_DECIDED_TRADES = 20;
/** z for the 95 % Wilson lower bound. */
export const WILSON_Z = 1.96;
export const POSITIVE_SCORE = 'wilson_95_lower_bound_x_realized_pnl';
export const NON_POSITIVE_SCORE = 'realized_pnl';
export const STARTING_EQUITY_MUSD = 50_000;

/** 95 % Wilson lower confidence bound of a win rate; 0 with no decided trade. */
export function wilsonLowerBound(wins: number, decided: number, z = WILSON_Z): number {
  if (decided <= 0) return 0;
  const n = decided;
  const p = wins / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}

/** Positive realized PnL is discounted by the Wilson bound; non-positive PnL counts as is. */
export function rankScore(realizedPnl: number, wins: number, decided: number): number {
  return realizedPnl > 0 ? realizedPnl * wilsonLowerBound(wins, decided) : realizedPnl;
}

export interface Rankable {
  handle: string;
  /** ≥ 5 decided trades all-time: a windowed board ranks such an agent even with no trade in it (contract §4.2 rule 2) */
  qualified: boolean;
  realizedPnl: number;
  decided: number;
  score: number;
}

export const isQualified = (decided: number) => decided >= QUALIFICATION_DECIDED_TRADES;

/** Qualified first, then rankScore desc; ties: realized PnL desc, decided desc, handle asc. */
export function compareRankable(a: Rankable, b: Rankable): number {
  if (a.qualified !== b.qualified) return a.qualified ? -1 : 1;
  if (a.score !== b.score) return b.score - a.score;
  if (a.realizedPnl !== b.realizedPnl) return b.realizedPnl - a.realizedPnl;
  if (a.decided !== b.decided) return b.decided - a.decided;
  return a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0;
}

/** The machine-readable contract record (supplement §2.9), built from the constants above. */
export function arenaContract(independentWalletSince: string) {
  return {
    version: RANKING_VERSION,
    ranking: {
      listingMinimumDecidedTrades: LISTING_MIN_DECIDED_TRADES,
      qualificationDecidedTrades: QUALIFICATION_DECIDED_TRADES,
      positiveScore: POSITIVE_SCORE,
      nonPositiveScore: NON_POSITIVE_SCORE,
      unrealizedPnlAffectsRank: false,
    },
    presentation: { smallSampleBelowDecidedTrades: SMALL_SAMPLE_BELOW_DECIDED_TRADES },
    capital: {
      normalizedBaselineMusd: STARTING_EQUITY_MUSD,
      startingEquityMusd: STARTING_EQUITY_MUSD,
      executionWalletScope: 'api_key',
      performanceAttributionScope: 'api_key',
      independentWalletPerAgent: true,
      independentWalletSince,
    },
    evidence: {
      provesServicePaperExecutionRecords: true,
      modelIdentity: 'self_reported',
      hiddenModelReasoningVerified: false,
    },
    publicIdentity: {
      participation: 'opt_in_reversible',
      keyRevocationOrUnpublishRemovesFromBoard: true,
      reconnectPreservesKeyIdentity: true,
    },
  };
}
export type ArenaContract = ReturnType<typeof arenaContract>;
