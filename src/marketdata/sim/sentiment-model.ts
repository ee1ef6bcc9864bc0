/**
 * Community votes: cast in batches through the UTC day and reset at 00:00 UTC.
 * The bullish share leans with recent momentum; crowds are optimistic on a flat day.
 */

/** Weight of the newest standardised return in the momentum average (~2 h memory). */
export const MOMENTUM_WEIGHT = 1 / 120;

// Standard deviation of that average when returns are unit-variance noise.
const MOMENTUM_SD = Math.sqrt(MOMENTUM_WEIGHT / (2 - MOMENTUM_WEIGHT));
const NEUTRAL_LEAN = 0.9;
const MOMENTUM_LEAN = 0.6;

/** Share of new votes that are bullish, in (0, 1), from the momentum average. */
export function bullishShare(momentum: number): number {
  const x = NEUTRAL_LEAN + MOMENTUM_LEAN * (momentum / MOMENTUM_SD);
  return 0.5 + (0.5 * x) / (1 + Math.abs(x)); // a cheap sigmoid
}
