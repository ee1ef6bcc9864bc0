/**
 * One global Fear & Greed value (0..100) from three readings of the crypto market:
 * breadth (share of coins up over 24 h), momentum (BTC over 7 days) and volatility
 * (BTC's realised volatility against its normal level; calm markets read as greedy).
 */

export type FearGreedLabel = 'Extreme Fear' | 'Fear' | 'Neutral' | 'Greed' | 'Extreme Greed';

export interface FearGreed {
  value: number;
  label: FearGreedLabel;
}

export interface FearGreedInputs {
  /** Share (0..1) of non-stable coins whose 24 h change is positive; null when unknown. */
  breadthUp: number | null;
  /** BTC's 7-day change in percent (5 = +5 %); null when unknown. */
  btcChange7dPct: number | null;
  /** BTC's recent realised daily volatility divided by its normal daily volatility; null when unknown. */
  volatilityRatio: number | null;
}

const WEIGHTS = { breadth: 0.4, momentum: 0.35, volatility: 0.25 };
/** A 7-day BTC move of this many percent reads about three quarters of the way to an extreme. */
const MOMENTUM_SCALE_PCT = 10;

export function fearGreedLabel(value: number): FearGreedLabel {
  if (value < 25) return 'Extreme Fear';
  if (value < 45) return 'Fear';
  if (value <= 55) return 'Neutral';
  if (value <= 75) return 'Greed';
  return 'Extreme Greed';
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Each reading as a 0..100 score; an unknown reading counts as neutral (50). */
export function fearGreedComponents(inputs: FearGreedInputs): { breadth: number; momentum: number; volatility: number } {
  const { breadthUp, btcChange7dPct, volatilityRatio } = inputs;
  const breadth = breadthUp === null || !Number.isFinite(breadthUp) ? 50 : 100 * clamp01(breadthUp);
  const momentum = btcChange7dPct === null || !Number.isFinite(btcChange7dPct) ? 50 : 50 + 50 * Math.tanh(btcChange7dPct / MOMENTUM_SCALE_PCT);
  const volatility =
    volatilityRatio === null || !(volatilityRatio >= 0) ? 50 : 50 - 50 * Math.tanh(1.5 * (volatilityRatio - 1));
  return { breadth, momentum, volatility };
}

export function fearGreed(inputs: FearGreedInputs): FearGreed {
  const c = fearGreedComponents(inputs);
  const raw = WEIGHTS.breadth * c.breadth + WEIGHTS.momentum * c.momentum + WEIGHTS.volatility * c.volatility;
  const value = Math.min(100, Math.max(0, Math.round(raw)));
  return { value, label: fearGreedLabel(value) };
}

/** Share of known 24 h changes that are positive; null when none is known. */
export function breadthUp(changes24hPct: readonly (number | null)[]): number | null {
  let known = 0;
  let up = 0;
  for (const change of changes24hPct) {
    if (change === null || !Number.isFinite(change)) continue;
    known += 1;
    if (change > 0) up += 1;
  }
  return known === 0 ? null : up / known;
}
