import { MINUTES_PER_DAY } from './params.js';
import { drawHash, hashToFatTailed, hashToNormal, hashToUnit, subHash } from './random.js';
import { REGIME_DRIFT_SIGN, REGIME_VOL, nextRegime } from './regimes.js';
import { MOMENTUM_WEIGHT, bullishShare } from './sentiment-model.js';
import { arraysToState, stateToArrays, type MarketState, type SimArrays } from './state.js';
import type { SimUniverse } from './universe.js';

// Sub-draws of one minute's hash; the price shock uses the hash itself.
const SUB_REGIME = 1;
const SUB_VOTES = 2;

// An unusual minute (squared standardised return) raises the volume target, within bounds.
const MAX_ACTIVITY = 50;
const MIN_ACTIVITY_FACTOR = 0.25;
const MAX_ACTIVITY_FACTOR = 20;

/**
 * e^x, by a 4th-order Taylor polynomial when |x| < 0.01 (relative error < 1e-12) and
 * Math.exp otherwise: nearly all minute returns are small, and this is the hot loop.
 */
export function expOfSmall(x: number): number {
  if (x > -0.01 && x < 0.01) return 1 + x * (1 + x * (0.5 + x * (1 / 6 + x * (1 / 24))));
  return Math.exp(x);
}

/** What the market factor did over one minute. */
interface MarketMove {
  logReturn: number;
  /** Squared return relative to the factor's long-run volatility. */
  activity: number;
}

function moveMarket(u: SimUniverse, a: SimArrays, minute: number): MarketMove {
  const hash = drawHash(u.marketStream, minute);
  const regime = a.marketRegime;
  const standardised = REGIME_VOL[regime]! * hashToFatTailed(hash);
  a.marketRegime = nextRegime(regime, hashToUnit(subHash(hash, SUB_REGIME)), u.params.marketRegimeRefreshPerMinute);
  return {
    logReturn: u.marketTrendPerMinute * REGIME_DRIFT_SIGN[regime]! + u.marketMinuteVol * standardised,
    activity: standardised * standardised,
  };
}

/** Moves a stablecoin's log-deviation from the $1 peg back toward zero, with tiny noise. */
function moveStable(u: SimUniverse, a: SimArrays, i: number, hash: number): void {
  const p = u.params;
  const deviation = Math.log(a.price[i]!);
  const next = deviation * (1 - p.stableReversionPerMinute) + p.stableMinuteNoise * hashToNormal(hash);
  a.price[i] = Math.exp(next);
}

/** Adds one batch of votes; busier coins (volume above base) attract more voters. */
function castVotes(u: SimUniverse, a: SimArrays, i: number, hash: number): void {
  const intensity = Math.sqrt(a.volume[i]! / u.baseVolume[i]!);
  const expected = u.votesPerMinute[i]! * u.params.sentimentBatchMinutes * intensity;
  const votes = Math.floor(expected + hashToUnit(subHash(hash, SUB_VOTES)));
  const bullish = Math.round(votes * bullishShare(a.momentum[i]!));
  a.bullish[i] = a.bullish[i]! + bullish;
  a.bearish[i] = a.bearish[i]! + (votes - bullish);
}

/**
 * Advances the columns by one minute in place (minuteIndex m -> m + 1). Every draw is
 * keyed by m, so the result depends only on the state at m, the universe and the seed.
 * One flat loop over typed arrays: back-fill runs this ~39 million times for 90 days.
 */
export function stepArrays(u: SimUniverse, a: SimArrays): void {
  const minute = a.minuteIndex;
  const market = moveMarket(u, a, minute);
  const next = minute + 1;
  const newDay = next % MINUTES_PER_DAY === 0;
  const voteBatch = !newDay && next % u.params.sentimentBatchMinutes === 0;
  const { price, regime, volume, momentum } = a;
  const { priceStreams, isStable, beta, idioMinuteVol, ownTrendPerMinute, totalMinuteVol, baseVolume, anchorPrice } = u;
  const { coinRegimeRefreshPerMinute, maxMinuteLogReturn: cap, volumeActivityGain, volumeReversionPerMinute } = u.params;
  const n = priceStreams.length;
  for (let i = 0; i < n; i += 1) {
    const hash = drawHash(priceStreams[i]!, minute);
    let activity: number;
    if (isStable[i] === 1) {
      moveStable(u, a, i, hash);
      activity = market.activity; // stablecoin turnover follows the whole market's activity
    } else {
      // Return = beta x market + own trend + own fat-tailed noise, capped; exp keeps price > 0.
      const r = regime[i]!;
      const own = ownTrendPerMinute[i]! * REGIME_DRIFT_SIGN[r]! + idioMinuteVol[i]! * REGIME_VOL[r]! * hashToFatTailed(hash);
      const raw = beta[i]! * market.logReturn + own;
      const logReturn = raw > cap ? cap : raw < -cap ? -cap : raw;
      price[i] = price[i]! * expOfSmall(logReturn);
      const standardised = logReturn / totalMinuteVol[i]!;
      momentum[i] = momentum[i]! + MOMENTUM_WEIGHT * (standardised - momentum[i]!);
      regime[i] = nextRegime(r, hashToUnit(subHash(hash, SUB_REGIME)), coinRegimeRefreshPerMinute);
      activity = standardised * standardised;
    }
    // The rolling 24 h volume drifts toward a target set by price level and recent activity.
    const boost = 1 + volumeActivityGain * ((activity < MAX_ACTIVITY ? activity : MAX_ACTIVITY) - 1);
    const factor = boost < MIN_ACTIVITY_FACTOR ? MIN_ACTIVITY_FACTOR : boost > MAX_ACTIVITY_FACTOR ? MAX_ACTIVITY_FACTOR : boost;
    const target = baseVolume[i]! * Math.sqrt(price[i]! / anchorPrice[i]!) * factor;
    volume[i] = volume[i]! + volumeReversionPerMinute * (target - volume[i]!);
    if (newDay) {
      a.bullish[i] = 0;
      a.bearish[i] = 0;
    } else if (voteBatch) {
      castVotes(u, a, i, hash);
    }
  }
  a.minuteIndex = next;
}

/** One minute forward for the whole universe; the input state is not modified. */
export function stepMarket(u: SimUniverse, state: MarketState): MarketState {
  const a = stateToArrays(u, state);
  stepArrays(u, a);
  return arraysToState(u, a);
}

/** Steps a stored state forward to toMinute (catch-up after downtime). No history is kept. */
export function advanceMarket(u: SimUniverse, state: MarketState, toMinute: number): MarketState {
  if (toMinute < state.minuteIndex) {
    throw new RangeError(`cannot step backwards from minute ${state.minuteIndex} to ${toMinute}`);
  }
  const a = stateToArrays(u, state);
  while (a.minuteIndex < toMinute) stepArrays(u, a);
  return arraysToState(u, a);
}
