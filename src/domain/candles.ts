/**
 * Candles are sampled composite-price bars (contract 2.8): each bar summarises the price
 * samples that fall inside it, aligned to UTC bar boundaries, oldest to newest.
 */

export interface CandleRangeSpec {
  /** Bar width in seconds. */
  readonly barSeconds: number;
  /** Number of bars the range returns. */
  readonly count: number;
}

/** The contract's candle ranges: 1H = 60 x 1 min, 1D = 288 x 5 min, 1W = 672 x 15 min, 1M = 720 x 1 h, 3M = 540 x 4 h. */
export const CANDLE_RANGES = {
  '1H': { barSeconds: 60, count: 60 },
  '1D': { barSeconds: 300, count: 288 },
  '1W': { barSeconds: 900, count: 672 },
  '1M': { barSeconds: 3_600, count: 720 },
  '3M': { barSeconds: 14_400, count: 540 },
} as const satisfies Record<string, CandleRangeSpec>;

export type CandleRange = keyof typeof CANDLE_RANGES;
export const CANDLE_RANGE_NAMES = Object.keys(CANDLE_RANGES) as CandleRange[];
export const DEFAULT_CANDLE_RANGE: CandleRange = '1D';

export function isCandleRange(value: string): value is CandleRange {
  return Object.hasOwn(CANDLE_RANGES, value);
}

/** One bar on the wire: `t` is the bar's open time in unix seconds; `v` is USD regardless of fiat. */
export interface Candle {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
}

/** One observation: price and the rolling 24 h USD volume seen at unix second `t`. */
export interface PriceSample {
  t: number;
  price: number;
  volume24hUsd: number;
}

/** A bar still being built: keeps the volume sum and sample count so it can grow by one sample. */
export interface BarAccumulator {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  volumeSum: number;
  samples: number;
}

/** Open time (unix s) of the UTC-aligned bar that contains instant tSec. */
export function barOpenTime(tSec: number, barSeconds: number): number {
  return Math.floor(tSec / barSeconds) * barSeconds;
}

export function openBar(sample: PriceSample, barSeconds: number): BarAccumulator {
  const p = sample.price;
  return { t: barOpenTime(sample.t, barSeconds), o: p, h: p, l: p, c: p, volumeSum: sample.volume24hUsd, samples: 1 };
}

/** The bar with one more (later) sample; the input bar is not modified. */
export function addToBar(bar: BarAccumulator, sample: PriceSample): BarAccumulator {
  const p = sample.price;
  return {
    t: bar.t,
    o: bar.o,
    h: Math.max(bar.h, p),
    l: Math.min(bar.l, p),
    c: p,
    volumeSum: bar.volumeSum + sample.volume24hUsd,
    samples: bar.samples + 1,
  };
}

/**
 * One bar from two partial bars of the same interval, `earlier` holding the earlier
 * samples (e.g. a stored bar and the rest of it computed after a restart).
 */
export function mergeBars(earlier: BarAccumulator, later: BarAccumulator): BarAccumulator {
  if (earlier.t !== later.t) throw new RangeError(`cannot merge bars opening at ${earlier.t} and ${later.t}`);
  return {
    t: earlier.t,
    o: earlier.o,
    h: Math.max(earlier.h, later.h),
    l: Math.min(earlier.l, later.l),
    c: later.c,
    volumeSum: earlier.volumeSum + later.volumeSum,
    samples: earlier.samples + later.samples,
  };
}

/** `v` is the mean of the rolling 24 h volume samples seen in the bar. */
export function barToCandle(bar: BarAccumulator): Candle {
  return { t: bar.t, o: bar.o, h: bar.h, l: bar.l, c: bar.c, v: bar.volumeSum / bar.samples };
}

function isUsable(s: PriceSample): boolean {
  return Number.isFinite(s.t) && Number.isFinite(s.price) && s.price > 0 && Number.isFinite(s.volume24hUsd);
}

function inTimeOrder(samples: readonly PriceSample[]): readonly PriceSample[] {
  for (let i = 1; i < samples.length; i += 1) {
    if (samples[i]!.t < samples[i - 1]!.t) return [...samples].sort((a, b) => a.t - b.t);
  }
  return samples;
}

export interface BuildCandlesOptions {
  /** The instant (unix s) whose bar is the newest; default: the last sample's time. Later samples are ignored. */
  nowSec?: number;
}

/**
 * The range's bars ending with the bar that contains `now`, oldest to newest. A bar with
 * no samples repeats the last seen price and volume (flat bar); bars before the first
 * sample are left out, so a short history returns fewer bars. Unusable samples
 * (non-finite, price <= 0) are skipped.
 */
export function buildCandles(
  samples: readonly PriceSample[],
  range: CandleRange | CandleRangeSpec,
  options: BuildCandlesOptions = {},
): Candle[] {
  const { barSeconds, count } = typeof range === 'string' ? CANDLE_RANGES[range] : range;
  const ordered = inTimeOrder(samples.filter(isUsable));
  const last = ordered[ordered.length - 1];
  if (last === undefined) return [];
  const now = options.nowSec ?? last.t;
  const firstOpen = barOpenTime(now, barSeconds) - (count - 1) * barSeconds;
  const bars: (BarAccumulator | undefined)[] = new Array(count);
  // The volume of each bar's last sample: what following empty bars repeat.
  const closingVolume = new Float64Array(count);
  let before: PriceSample | undefined;
  for (const sample of ordered) {
    if (sample.t > now) break;
    if (sample.t < firstOpen) {
      before = sample;
      continue;
    }
    const b = Math.floor((sample.t - firstOpen) / barSeconds);
    const bar = bars[b];
    bars[b] = bar === undefined ? openBar(sample, barSeconds) : addToBar(bar, sample);
    closingVolume[b] = sample.volume24hUsd;
  }
  const candles: Candle[] = [];
  let lastPrice = before?.price;
  let lastVolume = before?.volume24hUsd ?? 0;
  for (let b = 0; b < count; b += 1) {
    const bar = bars[b];
    if (bar !== undefined) {
      candles.push(barToCandle(bar));
      lastPrice = bar.c;
      lastVolume = closingVolume[b]!;
    } else if (lastPrice !== undefined) {
      const p = lastPrice;
      candles.push({ t: firstOpen + b * barSeconds, o: p, h: p, l: p, c: p, v: lastVolume });
    }
  }
  return candles;
}

/**
 * Candles in a fiat currency: prices times `rateToUsd` (fiat units per USD). `v` stays
 * in USD, as the contract says.
 */
export function convertCandles(candles: readonly Candle[], rateToUsd: number): Candle[] {
  if (!(Number.isFinite(rateToUsd) && rateToUsd > 0)) throw new RangeError(`rateToUsd must be positive, got ${rateToUsd}`);
  return candles.map((c) => ({ t: c.t, o: c.o * rateToUsd, h: c.h * rateToUsd, l: c.l * rateToUsd, c: c.c * rateToUsd, v: c.v }));
}
