import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalQuantile, studentT4Quantile } from '../../../src/marketdata/sim/quantiles.js';
import {
  drawHash,
  fatTailed,
  hashToFatTailed,
  hashToNormal,
  hashToUnit,
  normal,
  streamKey,
  uniform,
} from '../../../src/marketdata/sim/random.js';

function moments(xs: number[]): { mean: number; variance: number; kurtosis: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
  const fourth = xs.reduce((s, x) => s + (x - mean) ** 4, 0) / xs.length;
  return { mean, variance, kurtosis: fourth / variance ** 2 };
}

const N = 200_000;
const series = (f: (i: number) => number): number[] => Array.from({ length: N }, (_, i) => f(i));

describe('counter-based randomness', () => {
  it('gives the same value for the same (seed, stream, index), however many draws came before', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat({ max: 2 ** 40 }), fc.array(fc.nat(), { maxLength: 20 }), (seed, stream, index, noise) => {
        const first = uniform(seed, stream, index);
        for (const other of noise) uniform(seed, stream, other);
        expect(uniform(seed, stream, index)).toBe(first);
        expect(normal(seed, stream, index)).toBe(normal(seed, stream, index));
      }),
    );
  });

  it('differs between seeds, streams and neighbouring indices', () => {
    const base = uniform('a', 'price:1', 1000);
    expect(uniform('b', 'price:1', 1000)).not.toBe(base);
    expect(uniform('a', 'price:2', 1000)).not.toBe(base);
    expect(uniform('a', 'price:1', 1001)).not.toBe(base);
    // indices beyond 32 bits must not wrap onto small ones
    expect(uniform('a', 'price:1', 1000 + 2 ** 32)).not.toBe(base);
  });

  it('treats numeric and string seeds alike (SIM_SEED arrives as a string)', () => {
    expect(uniform(42, 's', 7)).toBe(uniform('42', 's', 7));
  });

  it('uniform lies in (0, 1) with mean 1/2 and variance 1/12', () => {
    const xs = series((i) => uniform(1, 'u', i));
    expect(xs.every((x) => x > 0 && x < 1)).toBe(true);
    const m = moments(xs);
    expect(m.mean).toBeCloseTo(0.5, 2);
    expect(m.variance).toBeCloseTo(1 / 12, 3);
  });

  it('neighbouring indices are uncorrelated', () => {
    const xs = series((i) => uniform(9, 'lag', i) - 0.5);
    let lag = 0;
    for (let i = 1; i < xs.length; i += 1) lag += xs[i]! * xs[i - 1]!;
    const correlation = lag / (xs.length - 1) / (1 / 12);
    expect(Math.abs(correlation)).toBeLessThan(0.01);
  });

  it('normal has mean 0, variance 1 and normal tails', () => {
    const m = moments(series((i) => normal(2, 'n', i)));
    expect(Math.abs(m.mean)).toBeLessThan(0.01);
    expect(m.variance).toBeGreaterThan(0.98);
    expect(m.variance).toBeLessThan(1.02);
    expect(m.kurtosis).toBeGreaterThan(2.9);
    expect(m.kurtosis).toBeLessThan(3.1);
  });

  it('fat-tailed draw has unit variance but far more big moves than a normal', () => {
    const xs = series((i) => fatTailed(3, 't', i));
    const m = moments(xs);
    expect(Math.abs(m.mean)).toBeLessThan(0.02);
    expect(m.variance).toBeGreaterThan(0.9);
    expect(m.variance).toBeLessThan(1.1);
    // A normal exceeds 4 sd about 6 times in 100,000; Student-t(4) scaled to unit variance ~100x more often.
    const beyond4 = xs.filter((x) => Math.abs(x) > 4).length / xs.length;
    expect(beyond4).toBeGreaterThan(0.001);
    expect(m.kurtosis).toBeGreaterThan(5);
  });

  it('table lookups agree with the exact quantiles', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (hash) => {
        const p = hashToUnit(hash);
        expect(hashToNormal(hash)).toBeCloseTo(normalQuantile(p), 3);
        expect(hashToFatTailed(hash)).toBeCloseTo(studentT4Quantile(p) / Math.SQRT2, 2);
      }),
    );
  });

  it('draw hashes of one stream do not repeat over a long run of minutes', () => {
    const stream = streamKey('seed', 'price:1');
    const seen = new Set<number>();
    for (let m = 29_000_000; m < 29_000_000 + 100_000; m += 1) seen.add(drawHash(stream, m));
    expect(seen.size).toBe(100_000);
  });
});

describe('quantile functions', () => {
  it('match textbook values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    expect(studentT4Quantile(0.975)).toBeCloseTo(2.776445, 5);
    expect(studentT4Quantile(0.995)).toBeCloseTo(4.604095, 5);
    expect(studentT4Quantile(0.05)).toBeCloseTo(-2.131847, 5);
  });

  it('reject probabilities outside (0, 1)', () => {
    expect(() => normalQuantile(0)).toThrow(RangeError);
    expect(() => studentT4Quantile(1)).toThrow(RangeError);
  });
});
