/**
 * PM fills under paper_execution_v1 (contract §1.3, supplement 3.5): the chosen side
 * fills at the ask (mid + half the venue spread) plus slippage growing with stake /
 * liquidity, and pays a price-dependent taker fee; the cost is folded into the shares.
 * Probabilities are in points (0..100).
 */
import { EXECUTION_ASSUMPTIONS, executionModel, pmFeeBps, type ExecutionModel } from '../execution-model.js';
import { Decimal } from '../money.js';

export const PM_MIN_STAKE_MUSD = 10;
/** Slippage points per unit of stake / liquidity, and its cap. */
export const PM_SLIPPAGE_POINTS_PER_LIQUIDITY = 50;
export const PM_SLIPPAGE_CAP_POINTS = 5;
/**
 * Never fill at or above this: an ask (with slippage) that reaches it leaves nothing to win, and
 * capping the fill instead filled below the costs disclosed — below the mid above 99.9.
 */
export const PM_MAX_FILL_POINTS = 99.9;
/** The block reason of an entry whose fill would reach PM_MAX_FILL_POINTS [ours]. */
export const FILL_AT_CERTAINTY = 'fill_at_certainty';
export const PM_FILL_BASIS = 'outcome_probability';

export type PmSide = 'yes' | 'no';

export interface PmBookView {
  /** The outcome's YES mid, 0..100. */
  outcomeProbability: number;
  /** Full bid-ask spread in points. */
  spreadPoints: number;
  liquidityUsd: number;
}

export interface PmFill {
  side: PmSide;
  /** Chosen-side mid before costs (YES p, NO 100 − p). */
  entryProbability: number;
  fillProbability: number;
  slippagePoints: number;
  feeRate: number;
  sharesMusd: Decimal;
  feeMusd: Decimal;
  /** What paying above the mid cost, in mUSD of shares not received. */
  priceCostMusd: Decimal;
  executionModel: ExecutionModel;
}

/** 100 − p in probability points without binary noise (100 − 85.7 is 14.299999999999997 in floating point). */
export function complementPoints(p: number): number {
  return Math.round((100 - p) * 1e9) / 1e9;
}

export function chosenSideMid(side: PmSide, outcomeProbability: number): number {
  return side === 'yes' ? outcomeProbability : complementPoints(outcomeProbability);
}

/**
 * Null when the outcome is not priced strictly inside 0..100, or when the fill (mid + half the
 * spread + slippage) would reach PM_MAX_FILL_POINTS (`fillReachesCertainty`).
 */
export function pmFill(side: PmSide, book: PmBookView, stakeMusd: Decimal): PmFill | null {
  const p = book.outcomeProbability;
  if (!(p > 0 && p < 100) || !(stakeMusd.greaterThan(0))) return null;
  const mid = chosenSideMid(side, p);
  const { slippagePoints, fillProbability } = fillPoints(mid, book, stakeMusd);
  if (fillProbability >= PM_MAX_FILL_POINTS) return null;
  const q = fillProbability / 100;
  const feeBps = pmFeeBps(q);
  const feeRate = feeBps / 10_000;
  const feeMusd = stakeMusd.times(feeRate);
  const sharesMusd = stakeMusd.minus(feeMusd).div(q);
  const sharesAtMid = stakeMusd.minus(feeMusd).div(mid / 100);
  const priceCostMusd = Decimal.max(0, sharesAtMid.minus(sharesMusd).times(q));
  const model = executionModel({
    feeBps,
    spreadBps: Math.max(1, Math.round(book.spreadPoints * 100)),
    slippageBps: Math.round(slippagePoints * 100 * 100) / 100,
    fee: feeMusd,
    slippageCost: priceCostMusd,
  });
  return {
    side,
    entryProbability: mid,
    fillProbability,
    slippagePoints,
    feeRate,
    sharesMusd,
    feeMusd,
    priceCostMusd,
    executionModel: { ...model, assumptions: [...EXECUTION_ASSUMPTIONS, 'PM fills at the ask (mid + half the venue spread) plus size/liquidity slippage; fee ≈ 1.8 % at 50 %, → 0 at the extremes'] },
  };
}

function fillPoints(mid: number, book: PmBookView, stakeMusd: Decimal): { slippagePoints: number; fillProbability: number } {
  const liquidity = Math.max(book.liquidityUsd, 1);
  const slippagePoints = Math.min(PM_SLIPPAGE_CAP_POINTS, (PM_SLIPPAGE_POINTS_PER_LIQUIDITY * stakeMusd.toNumber()) / liquidity);
  const halfSpread = Math.max(0, book.spreadPoints) / 2;
  return { slippagePoints, fillProbability: mid + halfSpread + slippagePoints };
}

/** A priced outcome whose fill on `side` for this stake would reach PM_MAX_FILL_POINTS. */
export function fillReachesCertainty(side: PmSide, book: PmBookView, stakeMusd: Decimal): boolean {
  const p = book.outcomeProbability;
  if (!(p > 0 && p < 100) || !stakeMusd.greaterThan(0)) return false;
  return fillPoints(chosenSideMid(side, p), book, stakeMusd).fillProbability >= PM_MAX_FILL_POINTS;
}

export interface EdgeSizing {
  basis: 'fractional_kelly_capped';
  kellyMultiplier: number;
  maxFraction: number;
  edgePoints: number;
  kellyFraction: number;
  appliedFraction: number;
  suggestedStakeMusd: number | null;
  noEdge: boolean;
}

const round8 = (x: number) => Math.round(x * 1e8) / 1e8;

export const KELLY_MULTIPLIER = 0.25;
export const KELLY_MAX_FRACTION = 0.05;

/** Advisory quarter-Kelly stake from the agent's own forecast; never changes the stake. */
export function edgeSizing(forecastProbability: number, entryProbability: number, bankrollMusd: number | null): EdgeSizing {
  const f = forecastProbability / 100;
  const q = entryProbability / 100;
  // Rounded like complementPoints: 50 − 40.2 read 9.799999999999997, and `edgePoints >= 9.8` was false.
  const kellyFraction = round8(q >= 1 ? 0 : (f - q) / (1 - q));
  const appliedFraction = Math.min(KELLY_MAX_FRACTION, Math.max(0, round8(KELLY_MULTIPLIER * kellyFraction)));
  const edgePoints = Math.round((forecastProbability - entryProbability) * 1e9) / 1e9;
  return {
    basis: 'fractional_kelly_capped',
    kellyMultiplier: KELLY_MULTIPLIER,
    maxFraction: KELLY_MAX_FRACTION,
    edgePoints,
    kellyFraction,
    appliedFraction,
    suggestedStakeMusd: bankrollMusd === null ? null : Math.round(appliedFraction * bankrollMusd * 100) / 100,
    noEdge: edgePoints <= 0,
  };
}
