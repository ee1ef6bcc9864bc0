import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { breadthUp, fearGreed, fearGreedLabel } from '../../../src/domain/fear-greed.js';

/** The contract's bands, written out independently of the implementation. */
function expectedLabel(value: number): string {
  if (value < 25) return 'Extreme Fear';
  if (value < 45) return 'Fear';
  if (value <= 55) return 'Neutral';
  if (value <= 75) return 'Greed';
  return 'Extreme Greed';
}

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { nil: null });

describe('Fear & Greed', () => {
  it('labels the band edges', () => {
    for (const [value, label] of [
      [0, 'Extreme Fear'],
      [24, 'Extreme Fear'],
      [25, 'Fear'],
      [44, 'Fear'],
      [45, 'Neutral'],
      [55, 'Neutral'],
      [56, 'Greed'],
      [75, 'Greed'],
      [76, 'Extreme Greed'],
      [100, 'Extreme Greed'],
    ] as const) {
      expect(fearGreedLabel(value)).toBe(label);
    }
  });

  it('is an integer in 0..100 with the matching label for any inputs', () => {
    fc.assert(
      fc.property(
        maybe(fc.double({ min: -1, max: 2, noNaN: true })),
        maybe(fc.double({ min: -100, max: 1000, noNaN: true })),
        maybe(fc.double({ min: 0, max: 50, noNaN: true })),
        (breadth, change7d, volRatio) => {
          const { value, label } = fearGreed({ breadthUp: breadth, btcChange7dPct: change7d, volatilityRatio: volRatio });
          expect(Number.isInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(100);
          expect(label).toBe(expectedLabel(value));
        },
      ),
    );
  });

  it('reads neutral with nothing known, greedy in a broad calm rally, fearful in a volatile broad slump', () => {
    expect(fearGreed({ breadthUp: null, btcChange7dPct: null, volatilityRatio: null }).label).toBe('Neutral');
    expect(fearGreed({ breadthUp: 0.9, btcChange7dPct: 15, volatilityRatio: 0.7 }).label).toBe('Extreme Greed');
    expect(fearGreed({ breadthUp: 0.1, btcChange7dPct: -15, volatilityRatio: 2 }).label).toBe('Extreme Fear');
  });

  it('rises with breadth and momentum and falls with volatility', () => {
    const base = { breadthUp: 0.5, btcChange7dPct: 0, volatilityRatio: 1 };
    const v = (over: Partial<typeof base>): number => fearGreed({ ...base, ...over }).value;
    expect(v({ breadthUp: 0.8 })).toBeGreaterThan(v({ breadthUp: 0.2 }));
    expect(v({ btcChange7dPct: 8 })).toBeGreaterThan(v({ btcChange7dPct: -8 }));
    expect(v({ volatilityRatio: 0.6 })).toBeGreaterThan(v({ volatilityRatio: 1.8 }));
  });

  it('measures breadth over known changes only', () => {
    expect(breadthUp([1, -1, 2, null, 0])).toBe(0.5);
    expect(breadthUp([null])).toBeNull();
  });
});
