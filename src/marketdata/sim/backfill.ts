/**
 * Runs the minute simulation over a window and keeps only what the API needs: the final
 * state, each candle range's bars, and the prices the 1h/24h/7d changes compare against.
 * Bars of 5 minutes and wider fold the minute states; 1-minute bars (the last hour)
 * also fold the 10-second ticks between them.
 */
import { CANDLE_RANGE_NAMES, type CandleRange } from '../../domain/candles.js';
import { realizedDailyVolatility } from '../../domain/market-stats.js';
import type { Coin } from '../coins.js';
import { createSeries, foldSamples, seriesCandles, seriesCovers, type SimCandleSeries } from './candle-series.js';
import { TICKS_PER_MINUTE, TICK_MS, pricesBetween } from './intraminute.js';
import { MS_PER_MINUTE, type SimParams, type SimProfileName } from './params.js';
import type { SimSeed } from './random.js';
import { BASELINE_OFFSETS_MIN, marketSnapshot, type ChangeBaselines, type MarketSnapshot } from './snapshot.js';
import { arraysToState, copyArrays, initialMarketState, stateToArrays, type MarketState } from './state.js';
import { stepArrays } from './step.js';
import { createSimUniverse, type SimUniverse } from './universe.js';

export interface RunOptions {
  /** Candle ranges to build (default: all five). */
  ranges?: readonly CandleRange[];
  /**
   * True when continuing a run whose bars already hold the start state's own sample
   * (its last minute); the new bars then merge with the stored ones via mergeBars.
   */
  startSampleFolded?: boolean;
}

export interface SimRunResult {
  /** The market at the run's last minute. */
  state: MarketState;
  series: Partial<Record<CandleRange, SimCandleSeries>>;
  baselines: ChangeBaselines;
  snapshot: MarketSnapshot;
}

const SECONDS_PER_MINUTE = MS_PER_MINUTE / 1000;

/** BTC's realised daily volatility from the 1D range's 5-minute closes, when the run built them. */
function btcRealizedVol(u: SimUniverse, series: SimRunResult['series']): number | null {
  const day = series['1D'];
  if (day === undefined || u.btcIndex < 0) return null;
  return realizedDailyVolatility(seriesCandles(day, u.btcIndex).map((c) => c.c), day.barSeconds);
}

/**
 * Steps `start` forward to toMinute, folding every minute (and the last hour's ticks) into
 * the requested candle ranges. "Now" is the instant toMinute * 60 000 ms, so the newest
 * bar of each range is the one containing it.
 */
export function runMarket(u: SimUniverse, start: MarketState, toMinute: number, options: RunOptions = {}): SimRunResult {
  const a = stateToArrays(u, start);
  if (!Number.isSafeInteger(toMinute) || toMinute < a.minuteIndex) {
    throw new RangeError(`toMinute ${toMinute} must be an integer not before minute ${a.minuteIndex}`);
  }
  const nowSec = toMinute * SECONDS_PER_MINUTE;
  const n = u.coins.length;
  const series: SimRunResult['series'] = {};
  const startSec = a.minuteIndex * SECONDS_PER_MINUTE;
  for (const range of options.ranges ?? CANDLE_RANGE_NAMES) series[range] = createSeries(range, nowSec, n, startSec);
  const all = Object.values(series);
  const minuteBars = series['1H'];
  const baselines: { -readonly [K in keyof ChangeBaselines]: ChangeBaselines[K] } = { oneHourAgo: null, oneDayAgo: null, sevenDaysAgo: null };
  const tickPrices = new Float64Array(n);
  const baselineKeys = Object.keys(BASELINE_OFFSETS_MIN) as (keyof ChangeBaselines)[];
  let skipSample = options.startSampleFolded === true;
  for (;;) {
    const minute = a.minuteIndex;
    const tSec = minute * SECONDS_PER_MINUTE;
    if (!skipSample) for (const s of all) if (seriesCovers(s, tSec)) foldSamples(s, tSec, a.price, a.volume);
    skipSample = false;
    for (const key of baselineKeys) {
      if (minute === toMinute - BASELINE_OFFSETS_MIN[key]) baselines[key] = a.price.slice();
    }
    if (minute === toMinute) break;
    if (minuteBars !== undefined && seriesCovers(minuteBars, tSec)) {
      const before = copyArrays(a);
      stepArrays(u, a);
      for (let k = 1; k < TICKS_PER_MINUTE; k += 1) {
        const tickMs = minute * MS_PER_MINUTE + k * TICK_MS;
        pricesBetween(u, before, a, tickMs, tickPrices);
        foldSamples(minuteBars, tickMs / 1000, tickPrices, before.volume);
      }
    } else {
      stepArrays(u, a);
    }
  }
  const state = arraysToState(u, a);
  return { state, series, baselines, snapshot: marketSnapshot(u, state, baselines, { btcRealizedDailyVol: btcRealizedVol(u, series) }) };
}

export interface BackfillOptions extends RunOptions {
  profile?: SimProfileName | SimParams;
}

export interface BackfillResult extends SimRunResult {
  universe: SimUniverse;
}

/**
 * History at start-up: the market cold-starts at fromMinute from coins.json prices and is
 * simulated minute by minute to toMinute. 90 days are 129,600 minutes.
 */
export function backfill(coins: readonly Coin[], seed: SimSeed, fromMinute: number, toMinute: number, options: BackfillOptions = {}): BackfillResult {
  const universe = createSimUniverse(coins, seed, options.profile);
  const result = runMarket(universe, initialMarketState(universe, fromMinute), toMinute, options);
  return { ...result, universe };
}
