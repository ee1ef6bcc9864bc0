import { describe, expect, it } from 'vitest';
import { FIAT_CODES, FIAT_CURRENCIES, fiatRateAt, fiatRatesAt } from '../../../src/marketdata/sim/index.js';

const START = 29_400_000;

describe('simulated fiat rates', () => {
  it('covers the required currencies, with USD exactly 1', () => {
    for (const code of ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'KRW', 'INR', 'BRL', 'CAD', 'AUD']) {
      expect(FIAT_CODES).toContain(code);
    }
    expect(fiatRateAt('s', 'USD', START)).toBe(1);
    expect(fiatRateAt('s', 'eur', START)).toBe(fiatRateAt('s', 'EUR', START));
    expect(fiatRateAt('s', 'XXX', START)).toBeNull();
  });

  it('stays near each base rate and moves slowly over a year', () => {
    for (const { code, baseRate } of FIAT_CURRENCIES) {
      let previous = fiatRateAt('year', code, START)!;
      let biggestStep = 0;
      let low = Number.POSITIVE_INFINITY;
      let high = 0;
      let moved = false;
      for (let m = START; m < START + 365 * 1440; m += 30) {
        const rate = fiatRateAt('year', code, m)!;
        low = Math.min(low, rate / baseRate);
        high = Math.max(high, rate / baseRate);
        biggestStep = Math.max(biggestStep, Math.abs(rate / previous - 1));
        if (rate !== previous) moved = true;
        previous = rate;
      }
      expect(low).toBeGreaterThan(0.8);
      expect(high).toBeLessThan(1.25);
      expect(biggestStep).toBeLessThan(0.01); // no jumps: 30 minutes never move a rate by 1 %
      expect(moved).toBe(code !== 'USD');
    }
  });

  it('is deterministic per seed and differs between seeds', () => {
    expect(fiatRatesAt('a', START + 77)).toEqual(fiatRatesAt('a', START + 77));
    expect(fiatRateAt('a', 'EUR', START + 77)).not.toBe(fiatRateAt('b', 'EUR', START + 77));
  });
});
