/**
 * Market regimes: each scales volatility and adds a drift. Regimes persist for hours
 * (small per-minute switch probability), which gives trends and volatility clusters.
 */
export const REGIMES = ['calm', 'trend_up', 'trend_down', 'volatile'] as const;
export type Regime = (typeof REGIMES)[number];

/** Regimes are stored as small integers in the hot loop; this is the index into REGIMES. */
export type RegimeCode = 0 | 1 | 2 | 3;

interface RegimeShape {
  volMultiplier: number;
  /** -1, 0 or +1: direction of the profile's trend drift. */
  driftSign: number;
  /** Share of time spent in the regime, and the odds of switching into it. */
  weight: number;
}

const SHAPES: readonly RegimeShape[] = [
  { volMultiplier: 0.75, driftSign: 0, weight: 0.5 },
  { volMultiplier: 1.0, driftSign: 1, weight: 0.2 },
  { volMultiplier: 1.15, driftSign: -1, weight: 0.2 },
  { volMultiplier: 1.9, driftSign: 0, weight: 0.1 },
];

// Divide by the long-run RMS multiplier so a coin's target volatility holds on average.
const RMS_MULTIPLIER = Math.sqrt(SHAPES.reduce((sum, s) => sum + s.weight * s.volMultiplier ** 2, 0));

/** Volatility multiplier per regime code, already normalised to unit long-run variance. */
export const REGIME_VOL = Float64Array.from(SHAPES, (s) => s.volMultiplier / RMS_MULTIPLIER);
/** Drift direction per regime code. */
export const REGIME_DRIFT_SIGN = Float64Array.from(SHAPES, (s) => s.driftSign);

export function regimeName(code: number): Regime {
  const name = REGIMES[code];
  if (name === undefined) throw new RangeError(`unknown regime code ${code}`);
  return name;
}

export function regimeCode(name: Regime): RegimeCode {
  const code = REGIMES.indexOf(name);
  if (code < 0) throw new RangeError(`unknown regime ${String(name)}`);
  return code as RegimeCode;
}

/** Draws a regime from the long-run weights with one uniform u in (0, 1). */
export function stationaryRegime(u: number): RegimeCode {
  let acc = 0;
  for (let code = 0; code < SHAPES.length; code += 1) {
    acc += SHAPES[code]!.weight;
    if (u < acc) return code as RegimeCode;
  }
  return (SHAPES.length - 1) as RegimeCode;
}

/**
 * With probability refreshProb the regime is redrawn from the long-run weights (it may
 * stay the same), which keeps the long-run shares equal to the weights.
 * One uniform does both jobs: given u < p, u / p is again uniform.
 */
export function nextRegime(current: number, u: number, refreshProb: number): number {
  return u < refreshProb ? stationaryRegime(u / refreshProb) : current;
}
