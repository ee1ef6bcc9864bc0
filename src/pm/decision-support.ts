/** DecisionSupport record (contract supplement 1.0): tiers from a configurable cut-off table. */
export interface DecisionSupport {
  qualityScore: number;
  qualityTier: 'high' | 'medium' | 'low';
  spreadTier: 'tight' | 'moderate' | 'wide' | 'unknown';
  liquidityTier: 'high' | 'medium' | 'low' | 'unknown';
  volumeTier: 'high' | 'medium' | 'low' | 'unknown';
  flags: { thinMarket: boolean; inactiveMarket: boolean; highAmbiguity: boolean; nearResolution: boolean };
}

/** Cut-offs [ours]: spread in probability points, liquidity and 24 h volume in USD. */
export const DECISION_SUPPORT_TIERS = {
  spreadPoints: { tight: 2, moderate: 5 },
  liquidityUsd: { high: 50_000, medium: 5_000 },
  volume24hUsd: { high: 50_000, medium: 2_000 },
  nearResolutionHours: 48,
  ambiguityBand: [40, 60] as const,
};

export interface DecisionSupportInput {
  spreadPoints: number | null;
  liquidity: number | null;
  volume24h: number | null;
  leaderProbability: number | null;
  endAtMs: number | null;
  nowMs: number;
}

const tier3 = (v: number | null, high: number, medium: number) => (v === null ? 'unknown' : v >= high ? 'high' : v >= medium ? 'medium' : 'low');

export function decisionSupport(input: DecisionSupportInput, t = DECISION_SUPPORT_TIERS): DecisionSupport {
  const spreadTier = input.spreadPoints === null ? 'unknown' : input.spreadPoints <= t.spreadPoints.tight ? 'tight' : input.spreadPoints <= t.spreadPoints.moderate ? 'moderate' : 'wide';
  const liquidityTier = tier3(input.liquidity, t.liquidityUsd.high, t.liquidityUsd.medium);
  const volumeTier = tier3(input.volume24h, t.volume24hUsd.high, t.volume24hUsd.medium);
  const points = { tight: 35, moderate: 20, wide: 5, unknown: 0, high: 35, medium: 20, low: 5 } as const;
  const volPoints = { high: 30, medium: 18, low: 5, unknown: 0 } as const;
  const qualityScore = points[spreadTier] + points[liquidityTier] + volPoints[volumeTier];
  const p = input.leaderProbability;
  return {
    qualityScore,
    qualityTier: qualityScore >= 70 ? 'high' : qualityScore >= 40 ? 'medium' : 'low',
    spreadTier,
    liquidityTier,
    volumeTier,
    flags: {
      thinMarket: liquidityTier === 'low' || liquidityTier === 'unknown',
      inactiveMarket: input.volume24h !== null && input.volume24h < 100,
      highAmbiguity: p !== null && p >= t.ambiguityBand[0] && p <= t.ambiguityBand[1],
      nearResolution: input.endAtMs !== null && input.endAtMs - input.nowMs <= t.nearResolutionHours * 3_600_000 && input.endAtMs > input.nowMs,
    },
  };
}
