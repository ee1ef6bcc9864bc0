import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANDLE_RANGES,
  CANDLE_RANGE_NAMES,
  addToBar,
  barOpenTime,
  barToCandle,
  buildCandles,
  convertCandles,
  isCandleRange,
  openBar,
  type Candle,
  type PriceSample,
} from '../../../src/domain/candles.js';

const NOW = 1_787_400_000 + 1234; // an instant that is not on a bar boundary

/** One sample a minute for `days` days up to NOW, on a wavy path. */
function minuteSamples(days: number): PriceSample[] {
  const samples: PriceSample[] = [];
  const first = Math.floor(NOW / 60) * 60 - days * 86_400;
  for (let t = first; t <= NOW; t += 60) {
    samples.push({ t, price: 100 + 10 * Math.sin(t / 5_000) + (t % 7), volume24hUsd: 1e6 + (t % 1000) });
  }
  return samples;
}

function expectWellFormed(candles: Candle[], barSeconds: number): void {
  candles.forEach((c, i) => {
    expect(c.t % barSeconds).toBe(0);
    if (i > 0) expect(c.t - candles[i - 1]!.t).toBe(barSeconds);
    expect(c.l).toBeLessThanOrEqual(Math.min(c.o, c.c));
    expect(c.h).toBeGreaterThanOrEqual(Math.max(c.o, c.c));
  });
}

describe('candle ranges', () => {
  it('are the contract table', () => {
    expect(CANDLE_RANGES['1H']).toEqual({ barSeconds: 60, count: 60 });
    expect(CANDLE_RANGES['1D']).toEqual({ barSeconds: 300, count: 288 });
    expect(CANDLE_RANGES['1W']).toEqual({ barSeconds: 900, count: 672 });
    expect(CANDLE_RANGES['1M']).toEqual({ barSeconds: 3_600, count: 720 });
    expect(CANDLE_RANGES['3M']).toEqual({ barSeconds: 14_400, count: 540 });
    expect(CANDLE_RANGE_NAMES).toEqual(['1H', '1D', '1W', '1M', '3M']);
    expect(isCandleRange('1W')).toBe(true);
    expect(isCandleRange('5Y')).toBe(false);
    expect(isCandleRange('toString')).toBe(false);
  });
});

describe('buildCandles', () => {
  const samples = minuteSamples(91);

  it.each(CANDLE_RANGE_NAMES)('returns exactly the range count for %s, oldest to newest, ending at now', (range) => {
    const { barSeconds, count } = CANDLE_RANGES[range];
    const candles = buildCandles(samples, range, { nowSec: NOW });
    expect(candles).toHaveLength(count);
    expectWellFormed(candles, barSeconds);
    const last = candles[candles.length - 1]!;
    expect(last.t).toBeLessThanOrEqual(NOW);
    expect(last.t + barSeconds).toBeGreaterThan(NOW);
    expect(candles[0]!.t).toBe(last.t - (count - 1) * barSeconds);
  });

  it('summarises the samples of each bar: first, max, min, last and mean volume', () => {
    const candles = buildCandles(samples, '1D', { nowSec: NOW });
    const bar = candles[100]!;
    const inside = samples.filter((s) => s.t >= bar.t && s.t < bar.t + 300);
    expect(inside).toHaveLength(5);
    expect(bar.o).toBe(inside[0]!.price);
    expect(bar.c).toBe(inside[4]!.price);
    expect(bar.h).toBe(Math.max(...inside.map((s) => s.price)));
    expect(bar.l).toBe(Math.min(...inside.map((s) => s.price)));
    expect(bar.v).toBeCloseTo(inside.reduce((s, x) => s + x.volume24hUsd, 0) / 5, 6);
  });

  it('holds OHLC invariants for any samples', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            t: fc.integer({ min: NOW - 7200, max: NOW }),
            price: fc.double({ min: 1e-9, max: 1e9, noNaN: true }),
            volume24hUsd: fc.double({ min: 0, max: 1e12, noNaN: true }),
          }),
          { minLength: 1, maxLength: 200 },
        ),
        (random) => {
          const candles = buildCandles(random, '1H', { nowSec: NOW });
          expect(candles.length).toBeGreaterThan(0);
          expect(candles.length).toBeLessThanOrEqual(60);
          expectWellFormed(candles, 60);
        },
      ),
    );
  });

  it('fills a bar without samples with the last price and leaves out bars before the first sample', () => {
    const t = barOpenTime(NOW, 300);
    const sparse: PriceSample[] = [
      { t: t - 900, price: 10, volume24hUsd: 5 }, // three bars back
      { t: t + 1, price: 12, volume24hUsd: 7 },
    ];
    const candles = buildCandles(sparse, '1D', { nowSec: NOW });
    expect(candles.map((c) => c.t)).toEqual([t - 900, t - 600, t - 300, t]);
    expect(candles[1]).toEqual({ t: t - 600, o: 10, h: 10, l: 10, c: 10, v: 5 });
    expect(candles[3]!.c).toBe(12);
  });

  it('ignores samples after now, accepts unsorted input and skips unusable samples', () => {
    const shuffled = [...samples.slice(-300)].reverse();
    const polluted = [...shuffled, { t: NOW - 5, price: -1, volume24hUsd: 1 }, { t: NOW + 600, price: 1e9, volume24hUsd: 1 }];
    expect(buildCandles(polluted, '1H', { nowSec: NOW })).toEqual(buildCandles(samples.slice(-300), '1H', { nowSec: NOW }));
    expect(buildCandles([], '1H')).toEqual([]);
  });

  it('can grow a bar sample by sample with the same result', () => {
    const inside = samples.slice(-30, -25);
    let bar = openBar(inside[0]!, 300);
    for (const s of inside.slice(1)) bar = addToBar(bar, s);
    const c = barToCandle(bar);
    expect(c.o).toBe(inside[0]!.price);
    expect(c.c).toBe(inside[4]!.price);
  });
});

describe('convertCandles', () => {
  it('multiplies prices by the fiat rate and keeps volume in USD', () => {
    const usd: Candle[] = [{ t: 60, o: 1, h: 2, l: 0.5, c: 1.5, v: 1000 }];
    expect(convertCandles(usd, 0.9)).toEqual([{ t: 60, o: 0.9, h: 1.8, l: 0.45, c: 1.35, v: 1000 }]);
    expect(() => convertCandles(usd, 0)).toThrow(RangeError);
  });
});
