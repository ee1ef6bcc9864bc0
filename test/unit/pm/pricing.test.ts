import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { chosenSideMid, edgeSizing, fillReachesCertainty, pmFill, PM_MAX_FILL_POINTS } from '../../../src/domain/pm/pricing.js';
import { refusalKind } from '../../../src/services/pm-trading.js';

const book = { outcomeProbability: 50, spreadPoints: 2, liquidityUsd: 50_000 };

describe('PM fill (paper_execution_v1)', () => {
  it('fills at the ask plus slippage, keeps entryProbability at the mid and folds costs into shares', () => {
    const fill = pmFill('yes', book, new Decimal(100))!;
    expect(fill.entryProbability).toBe(50);
    expect(fill.fillProbability).toBeCloseTo(51 + 0.1, 10);
    expect(fill.feeRate).toBeCloseTo(0.018, 3);
    expect(fill.sharesMusd.toNumber()).toBeCloseTo((100 * (1 - fill.feeRate)) / 0.511, 6);
    expect(fill.sharesMusd.lessThan(200)).toBe(true); // less than a free fill at the mid
    expect(fill.executionModel.feeBps).toBeGreaterThan(0);
    expect(fill.executionModel.spreadBps).toBeGreaterThan(0);
  });

  it('prices a NO entry at 100 minus the outcome probability', () => {
    const fill = pmFill('no', { ...book, outcomeProbability: 30 }, new Decimal(50))!;
    expect(fill.entryProbability).toBe(70);
    expect(fill.fillProbability).toBeGreaterThan(70);
  });

  it('gives the NO mid exactly as shown, without floating-point noise (a floor at 14.3 must pass at 14.3)', () => {
    for (const [yes, no] of [[85.7, 14.3], [76.9, 23.1], [95.9, 4.1], [99.3, 0.7], [33.33, 66.67]]) expect(chosenSideMid('no', yes!)).toBe(no);
    expect(pmFill('no', { ...book, outcomeProbability: 85.7, spreadPoints: 0 }, new Decimal(10))!.entryProbability).toBe(14.3);
  });

  it('files a refusal as quote_expired when every reason is a closed event or a vanished price', () => {
    expect(refusalKind(422, ['event_not_open', 'not_open', 'entry_price_unavailable'])).toBe('quote_expired');
    expect(refusalKind(422, ['price_stale_near_end'])).toBe('quote_expired');
    expect(refusalKind(422, ['event_settled', 'not_open'])).toBe('quote_expired');
    expect(refusalKind(422, ['not_open', 'entry_below_floor'])).toBe('risk_rejected');
  });

  it('grows slippage with stake and shrinks the fee toward the extremes', () => {
    const small = pmFill('yes', book, new Decimal(10))!;
    const large = pmFill('yes', book, new Decimal(2_000))!;
    expect(large.executionModel.slippageBps).toBeGreaterThan(small.executionModel.slippageBps);
    const extreme = pmFill('yes', { ...book, outcomeProbability: 97 }, new Decimal(10))!;
    expect(extreme.feeRate).toBeLessThan(small.feeRate / 5);
  });

  it('refuses an unpriced outcome', () => {
    expect(pmFill('yes', { ...book, outcomeProbability: 0 }, new Decimal(10))).toBeNull();
    expect(pmFill('yes', { ...book, outcomeProbability: 100 }, new Decimal(10))).toBeNull();
  });

  it('refuses a fill that would reach 99.9 instead of capping it (capped, it filled below the mid above 99.9 and under the disclosed costs)', () => {
    const near = { outcomeProbability: 99.95, spreadPoints: 0.02, liquidityUsd: 1_000_000 };
    expect(pmFill('yes', near, new Decimal(10))).toBeNull();
    expect(fillReachesCertainty('yes', near, new Decimal(10))).toBe(true);
    // 98 + 0.5 half-spread + 5 slippage (capped) = 103.5 points
    const thin = { outcomeProbability: 98, spreadPoints: 1, liquidityUsd: 1_000 };
    expect(pmFill('yes', thin, new Decimal(100))).toBeNull();
    expect(fillReachesCertainty('yes', thin, new Decimal(100))).toBe(true);
    // the other side of that book is far from certainty
    expect(fillReachesCertainty('no', thin, new Decimal(100))).toBe(false);
    expect(pmFill('no', thin, new Decimal(100))!.fillProbability).toBeCloseTo(2 + 0.5 + 5, 9);
    // unpriced is not this reason
    expect(fillReachesCertainty('yes', { ...near, outcomeProbability: 100 }, new Decimal(10))).toBe(false);
  });

  it('fills at the mid plus the disclosed costs, below 99.9, and pays out between the stake and stake / mid — or refuses (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 99.99, noNaN: true }), fc.double({ min: 0, max: 10, noNaN: true }), fc.integer({ min: 10, max: 100_000 }), (p, spread, stake) => {
        const bookAt = { outcomeProbability: p, spreadPoints: spread, liquidityUsd: 20_000 };
        const fill = pmFill('yes', bookAt, new Decimal(stake));
        expect(fill === null).toBe(fillReachesCertainty('yes', bookAt, new Decimal(stake)));
        if (!fill) return;
        expect(fill.fillProbability).toBeCloseTo(p + spread / 2 + fill.slippagePoints, 9);
        expect(fill.fillProbability).toBeLessThan(PM_MAX_FILL_POINTS);
        expect(fill.sharesMusd.toNumber()).toBeLessThanOrEqual((stake / (p / 100)) * (1 + 1e-9));
        expect(fill.sharesMusd.toNumber()).toBeGreaterThan(stake * 0.9);
      }),
    );
  });
});

describe('edge sizing (quarter Kelly, capped)', () => {
  it('suggests a capped quarter-Kelly stake and flags no edge', () => {
    const s = edgeSizing(60, 50, 1_000);
    expect(s.kellyFraction).toBeCloseTo(0.2, 10);
    expect(s.appliedFraction).toBeCloseTo(0.05, 10); // 0.25 × 0.2 = 0.05, at the cap
    expect(s.suggestedStakeMusd).toBe(50);
    expect(edgeSizing(40, 50, null)).toMatchObject({ noEdge: true, appliedFraction: 0, suggestedStakeMusd: null });
  });

  it('gives the edge as shown, without floating-point noise (50 − 40.2 must be 9.8 exactly)', () => {
    const s = edgeSizing(50, 40.2, 10_000);
    expect(s.edgePoints).toBe(9.8);
    expect(s.kellyFraction).toBe(0.16387960);
    expect(s.appliedFraction).toBe(0.0409699);
  });
});
