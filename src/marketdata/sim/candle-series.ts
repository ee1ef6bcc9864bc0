/**
 * Bars of one candle range for every coin at once, as flat columns (bar-major:
 * index = bar * coinCount + coin), so a run can fold a sample into all coins' bars
 * in one tight loop. Same rules as buildCandles in src/domain/candles.ts.
 */
import { CANDLE_RANGES, barOpenTime, barToCandle, type BarAccumulator, type Candle, type CandleRange } from '../../domain/candles.js';

export interface SimCandleSeries {
  readonly range: CandleRange;
  readonly barSeconds: number;
  /** Bars held: the range's count, or fewer when the run started inside the window. */
  readonly count: number;
  /** Open time (unix s) of the oldest bar held. */
  readonly firstOpen: number;
  /** Open time (unix s) of the newest bar (the one containing `now`). */
  readonly lastOpen: number;
  readonly coinCount: number;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volumeSum: Float64Array;
  /** Samples folded into each bar; 0 means the run never reached that bar. */
  readonly samples: Float64Array;
}

/**
 * Empty bars for the range's window ending at nowSec; a run starting at startSec inside
 * the window only gets bars from there on (a short catch-up stays small).
 */
export function createSeries(range: CandleRange, nowSec: number, coinCount: number, startSec: number = Number.NEGATIVE_INFINITY): SimCandleSeries {
  const { barSeconds, count: rangeCount } = CANDLE_RANGES[range];
  const lastOpen = barOpenTime(nowSec, barSeconds);
  const windowOpen = lastOpen - (rangeCount - 1) * barSeconds;
  const firstOpen = Math.max(windowOpen, Math.min(lastOpen, barOpenTime(startSec, barSeconds)));
  const count = (lastOpen - firstOpen) / barSeconds + 1;
  const size = count * coinCount;
  return {
    range,
    barSeconds,
    count,
    firstOpen,
    lastOpen,
    coinCount,
    open: new Float64Array(size),
    high: new Float64Array(size),
    low: new Float64Array(size),
    close: new Float64Array(size),
    volumeSum: new Float64Array(size),
    samples: new Float64Array(size),
  };
}

/** Whether instant tSec falls inside the series window. */
export function seriesCovers(series: SimCandleSeries, tSec: number): boolean {
  return tSec >= series.firstOpen && tSec < series.lastOpen + series.barSeconds;
}

/** Folds one sample of every coin (same instant, later than earlier samples) into its bar. */
export function foldSamples(series: SimCandleSeries, tSec: number, prices: Float64Array, volumes: Float64Array): void {
  const n = series.coinCount;
  const base = Math.floor((tSec - series.firstOpen) / series.barSeconds) * n;
  const { open, high, low, close, volumeSum, samples } = series;
  for (let i = 0; i < n; i += 1) {
    const k = base + i;
    const p = prices[i]!;
    if (samples[k] === 0) {
      open[k] = p;
      high[k] = p;
      low[k] = p;
    } else {
      if (p > high[k]!) high[k] = p;
      if (p < low[k]!) low[k] = p;
    }
    close[k] = p;
    volumeSum[k] = volumeSum[k]! + volumes[i]!;
    samples[k] = samples[k]! + 1;
  }
}

/**
 * One coin's bars with their sample counts, oldest to newest, for storing and for
 * merging with bars of an earlier run (mergeBars). Bars the run never reached are left out.
 */
export function seriesBars(series: SimCandleSeries, coinIndex: number): BarAccumulator[] {
  if (!(Number.isInteger(coinIndex) && coinIndex >= 0 && coinIndex < series.coinCount)) {
    throw new RangeError(`coin index ${coinIndex} out of range`);
  }
  const bars: BarAccumulator[] = [];
  const n = series.coinCount;
  for (let b = 0; b < series.count; b += 1) {
    const k = b * n + coinIndex;
    const samples = series.samples[k]!;
    if (samples === 0) continue; // a sim run has no gaps after its first sample
    bars.push({
      t: series.firstOpen + b * series.barSeconds,
      o: series.open[k]!,
      h: series.high[k]!,
      l: series.low[k]!,
      c: series.close[k]!,
      volumeSum: series.volumeSum[k]!,
      samples,
    });
  }
  return bars;
}

/** One coin's candles, oldest to newest; bars before the run started are left out. */
export function seriesCandles(series: SimCandleSeries, coinIndex: number): Candle[] {
  return seriesBars(series, coinIndex).map(barToCandle);
}
